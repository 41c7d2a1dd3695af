//! A `.vrm`'s clips as `.vrma` files beside it (`STEM.CLIP.vrma`, made by
//! `vrm_writer::make_vrma`): each written to its temporary file and handed back to be put in
//! place with the `.vrm` as one set (`atomic::PendingFile::with_siblings`), a note each.

use crate::atomic::PendingFile;
use crate::diagnostics::{Code, Diagnostics};
use crate::error::ConvertError;
use crate::options::ConvertOptions;
use g4mf_writer::CharacterSpec;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// How many of the bones a clip turns but a `.vrma` leaves out a note names.
const NAMED_STILL: usize = 8;

/// What writing a `.vrm`'s clips left: the files, each written to its temporary file, to
/// commit with it, and their bytes in all.
#[derive(Debug, Default)]
pub(crate) struct ClipFiles {
    /// The `.vrma` files, not yet in place.
    pub files: Vec<PendingFile>,
    /// Their bytes.
    pub bytes: u64,
}

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
/// `.vrm` has it) and writes it to its temporary file, to be committed with the `.vrm`; a note
/// per file and a warning per clip that turns bones its `.vrma` leaves out are said.
pub(super) fn write_clips(
    spec: &CharacterSpec,
    humanoid: &BTreeMap<String, usize>,
    clips: &[gltf_writer::ClipSpec],
    options: &ConvertOptions,
    said: &mut Diagnostics,
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
    let mut written = ClipFiles::default();
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
        said.say(Code::VrmaWritten, note(&path, &clip.name, &vrma));
        if let Some(warning) = still_warning(&clip.name, &vrma.still) {
            said.say(Code::VrmaBonesLeftOut, warning);
        }
        written.files.push(file);
        written.bytes += vrma.file.len() as u64;
    }
    if !clips.is_empty() {
        crate::timings::lap("write: vrma");
    }
    Ok(written)
}

/// The note saying where a clip went and what of the skeleton it holds.
fn note(path: &Path, clip: &str, vrma: &vrm_writer::Vrma) -> String {
    let file = path.file_name().unwrap_or_default().to_string_lossy();
    format!(
        "clip `{clip}` written beside the .vrm as {file} (VRMC_vrm_animation: {} human bones, {} key{}); the {} other bones are not in it and stay at their rest under their parents when it plays",
        vrma.human_bones,
        vrma.keys,
        if vrma.keys == 1 { "" } else { "s" },
        vrma.left_out,
    )
}

/// The warning for the bones clip `clip` turns that its `.vrma` leaves out (`still`), if any:
/// a player keeps them at rest, so the bones below them follow the human bones alone.
fn still_warning(clip: &str, still: &[String]) -> Option<String> {
    if still.is_empty() {
        return None;
    }
    let named: Vec<&str> = still.iter().take(NAMED_STILL).map(String::as_str).collect();
    let more = match still.len() - named.len() {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    Some(format!(
        "clip `{clip}` turns {} bones that are not VRM human bones, which its .vrma leaves out (a player keeps them at rest under their parents): {}{more}",
        still.len(),
        named.join(", "),
    ))
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
