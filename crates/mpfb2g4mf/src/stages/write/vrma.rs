//! A `.vrm`'s clips as `.vrma` files beside it (`STEM.CLIP.vrma`, made by
//! `vrm_writer::make_vrma`): each written to its temporary file and handed back to be put in
//! place with the `.vrm` as one set (`atomic::PendingFile::with_siblings`), a note each.

use crate::atomic::PendingFile;
use crate::error::ConvertError;
use crate::options::ConvertOptions;
use g4mf_writer::CharacterSpec;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// How many of the bones a clip turns but a `.vrma` leaves out a note names.
const NAMED_STILL: usize = 8;

/// A `.vrm`'s clip files, each written to its temporary file, and their bytes in all.
pub(crate) type ClipFiles = (Vec<PendingFile>, u64);

/// Where clip `clip` of the `.vrm` at `output` goes: beside it, `STEM.CLIP.vrma` (clip names
/// are G4MF names, which hold no `/`, `\` or `.`, so the name stays in the folder and reads
/// back as the `.vrm`'s stem and the clip's name).
pub(crate) fn vrma_path(output: &Path, clip: &str) -> PathBuf {
    let mut name = OsString::from(output.file_stem().unwrap_or_default());
    name.push(".");
    name.push(clip);
    name.push(".vrma");
    output.with_file_name(name)
}

/// Makes each of `clips` a `.vrma` of the avatar `spec` (its humanoid map `humanoid`, as the
/// `.vrm` has it) and writes it to its temporary file; the files, to be committed with the
/// `.vrm`, and their bytes. Says each in `notes`.
pub(super) fn write_clips(
    spec: &CharacterSpec,
    humanoid: &BTreeMap<String, usize>,
    clips: &[gltf_writer::ClipSpec],
    options: &ConvertOptions,
    notes: &mut Vec<String>,
) -> Result<ClipFiles, ConvertError> {
    // A folder where a clip goes would fail its rename after others were renamed: refused
    // before anything is written, so the set is replaced whole or not at all.
    if let Some(path) = clips
        .iter()
        .map(|c| vrma_path(&options.output, &c.name))
        .find(|p| p.is_dir())
    {
        return Err(ConvertError::Output {
            path,
            source: std::io::Error::other("a folder is there, where the clip's .vrma goes"),
        });
    }
    let mut files = Vec::with_capacity(clips.len());
    let mut bytes = 0;
    for clip in clips {
        let path = vrma_path(&options.output, &clip.name);
        let vrma =
            vrm_writer::make_vrma(spec, humanoid, clip).map_err(|source| ConvertError::Vrma {
                path: path.clone(),
                source,
            })?;
        let parts: Vec<&[u8]> = vrma.file.parts().collect();
        let file = PendingFile::write(&path, &parts).map_err(|source| ConvertError::Output {
            path: path.clone(),
            source,
        })?;
        notes.push(note(&path, &clip.name, &vrma));
        files.push(file);
        bytes += vrma.file.len() as u64;
    }
    if !clips.is_empty() {
        crate::timings::lap("write: vrma");
    }
    Ok((files, bytes))
}

/// The note saying where a clip went and what of the skeleton it holds.
fn note(path: &Path, clip: &str, vrma: &vrm_writer::Vrma) -> String {
    let file = path.file_name().unwrap_or_default().to_string_lossy();
    let mut note = format!(
        "clip `{clip}` written beside the .vrm as {file} (VRMC_vrm_animation: {} human bones, {} key{}); the {} other bones are not in it and stay at their rest under their parents when it plays",
        vrma.human_bones,
        vrma.keys,
        if vrma.keys == 1 { "" } else { "s" },
        vrma.left_out,
    );
    if !vrma.still.is_empty() {
        let named: Vec<&str> = vrma
            .still
            .iter()
            .take(NAMED_STILL)
            .map(String::as_str)
            .collect();
        let more = vrma.still.len() - named.len();
        note.push_str(&format!(
            ", though the clip turns {} of them: {}{}",
            vrma.still.len(),
            named.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    note
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clip_goes_beside_the_vrm_named_after_its_stem_and_the_clip() {
        assert_eq!(
            vrma_path(Path::new("out/Anna.vrm"), "walk"),
            Path::new("out/Anna.walk.vrma")
        );
        assert_eq!(
            vrma_path(Path::new("Anna.v1.vrm"), "run 01"),
            Path::new("Anna.v1.run 01.vrma")
        );
    }
}
