//! The G4MF output of the write stage: the spec laid out by `g4mf-writer` (its
//! `CharacterOptions`), the authored weights the skin cannot carry as binary accessors the
//! mesh extras name, the thumbnail, statistics for the summary, then `.g4b` or `.g4tf` bytes
//! validated when asked and written atomically (a `.g4b` now or later, a `.g4tf` with its
//! external buffers as a pair).

use super::{
    Commit, Derived, Kept, TextureTable, Written, copy_images, output_error, say_unweighted,
    text_bytes, to_value,
};
use crate::derived::{Both, Id};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::error::ConvertError;
use crate::extras::{MeshExtras, UnskinnedWeights, ranges};
use crate::options::{ConvertOptions, OutputFormat};
use crate::stages::assemble::MpfbExtras;
use character::Character;
use g4mf_writer::{
    BufferBuilder, BuiltCharacter, CharacterOptions, CharacterSpec, Compression, ContainerOptions,
    IndexWidth, TextBufferStorage, build_character_with, embed_thumbnail, g4b_parts, write_g4tf,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Writes `spec` as G4MF: laid out, its MPFB mesh extras (the numbering and the pairs the skin
/// cannot carry, from `character`, whose arrays the spec took) and thumbnail appended, then
/// encoded and written.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_g4mf(
    spec: CharacterSpec,
    kept: Kept,
    character: &Character,
    mut extras: MpfbExtras,
    thumbnail: Option<(Vec<u8>, [f64; 3])>,
    (options, format, commit): (&ConvertOptions, OutputFormat, Commit),
    textures: &TextureTable,
    derived: &Derived,
    said: &mut Diagnostics,
) -> Result<Written, ConvertError> {
    // The pairs the skin cannot carry (helper vertices carry ~17k pairs in MakeHuman's
    // weights: too many for JSON text), once per authored weights and numbering.
    let uncarried = character.skin.as_ref().map(|skin| {
        let numbering = &character.mesh.numbering;
        derived
            .uncarried
            .get_or(Both(Id::of(&skin.authored), Id::of(numbering)), || {
                Arc::new(Uncarried::of(&skin.authored, numbering))
            })
    });
    let layout = layout_of(options, uncarried.as_deref(), thumbnail.as_ref());
    let vertex_count = spec.mesh.as_ref().map_or(0, |m| m.positions.len());
    let mut built = build_character_with(&spec, &layout)?;
    crate::timings::lap("write: build");
    let copies = copy_images(textures)?;
    extras.mesh.source_vertex_count = Some(character.mesh.numbering.source_count);
    extras.mesh.source_vertices = Some(ranges(&character.mesh.numbering.source));
    append_extras(&mut built, extras.mesh, uncarried.as_deref(), thumbnail)?;
    crate::timings::lap("write: extras");
    let statistics = Statistics::of(&built, &spec, vertex_count);
    crate::timings::lap("write: stats");
    let unweighted = (
        statistics.unweighted_vertices,
        statistics.attachment_unweighted.as_slice(),
    );
    say_unweighted(said, &kept, unweighted, false);
    let (output, images) =
        settle_copies(output(&mut built, options, (format, commit), said)?, copies);
    Ok(Written {
        pending: output.pending,
        external: output.external,
        bytes: output.bytes,
        joints: built.joint_bones.len(),
        weight_pairs: built.skin.len(),
        max_influences: statistics.max_influences,
        unweighted_vertices: statistics.unweighted_vertices,
        faces: kept.faces,
        images,
        vrm: None,
    })
}

/// The writer's layout options, its buffer reserving room for what [`append_extras`] adds:
/// the uncarried pairs (three accessors of at most four bytes an entry) and the thumbnail's
/// PNG, each view padded.
fn layout_of(
    options: &ConvertOptions,
    uncarried: Option<&Uncarried>,
    thumbnail: Option<&(Vec<u8>, [f64; 3])>,
) -> CharacterOptions {
    CharacterOptions {
        all_joints: options.all_joints,
        group_names: options.group_names,
        index_width: IndexWidth::Smallest,
        reserve_bytes: uncarried.map_or(0, |u| u.groups.len() * 12)
            + thumbnail.map_or(0, |(png, _)| png.len())
            + 4 * g4mf_writer::VIEW_ALIGNMENT,
    }
}

/// The authored pairs a skin does not carry for a mesh (see
/// [`character::AuthoredWeights::uncarried`]), as the mesh extras' accessors hold them: the
/// names of their groups in first-use order, and each pair's group (in that list), source
/// vertex and float32 weight.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Uncarried {
    /// Group names, in first-use order.
    pub names: Vec<String>,
    /// Each pair's group, an index into `names`.
    pub groups: Vec<u32>,
    /// Each pair's source vertex.
    pub vertices: Vec<u32>,
    /// Each pair's weight.
    pub weights: Vec<f32>,
}

impl Uncarried {
    /// The pairs of `authored` the skin of a mesh numbered `numbering` does not carry.
    pub fn of(authored: &character::AuthoredWeights, numbering: &character::Numbering) -> Self {
        let mut out = Self::default();
        // The place in `names` of each authored group, once it is used.
        let mut index: Vec<Option<u32>> = vec![None; authored.groups.len()];
        for pair in authored.uncarried(numbering) {
            let g = *index[pair.group as usize].get_or_insert_with(|| {
                out.names
                    .push(authored.groups[pair.group as usize].name.clone());
                (out.names.len() - 1) as u32
            });
            out.groups.push(g);
            out.vertices.push(pair.vertex);
            out.weights.push(pair.weight as f32);
        }
        out
    }
}

/// Validates encoded G4MF bytes that will be written to `output` (external buffers are read
/// from its folder): an invalid file is an error before it replaces anything; a valid one
/// gives its other findings (warnings, infos) as `validate` prints them.
fn check_valid(bytes: &[u8], output: &Path) -> Result<Vec<g4mf_validator::Finding>, ConvertError> {
    let folder = output.parent().filter(|p| !p.as_os_str().is_empty());
    let report = g4mf_validator::validate_bytes(
        bytes,
        Some(folder.unwrap_or(Path::new("."))),
        &output.display().to_string(),
        &g4mf_validator::ValidateOptions::default(),
    );
    if report.is_valid() {
        return Ok(report.findings);
    }
    let first = report
        .findings
        .iter()
        .find(|f| f.severity == g4mf_validator::Severity::Error)
        .map(|f| format!("{} {}", f.code, f.message))
        .unwrap_or_default();
    Err(ConvertError::Invalid {
        path: output.to_path_buf(),
        errors: report.counts.num_errors,
        first,
    })
}

/// Appends to the built character's buffer what is not part of its layout: the pairs the skin
/// cannot carry (as binary accessors the mesh extras name) and the thumbnail; then writes the
/// mesh extras.
fn append_extras(
    built: &mut BuiltCharacter,
    mut mesh_extras: crate::extras::MpfbMesh,
    uncarried: Option<&Uncarried>,
    thumbnail: Option<(Vec<u8>, [f64; 3])>,
) -> Result<(), ConvertError> {
    let mut buffer = BufferBuilder::resume(std::mem::take(&mut built.buffer), IndexWidth::Smallest);
    if let Some(uncarried) = uncarried.filter(|u| !u.groups.is_empty()) {
        let groups = buffer.add_uint(&mut built.document, &uncarried.groups, 1)?;
        let vertices = buffer.add_uint(&mut built.document, &uncarried.vertices, 1)?;
        let weights = buffer.add_f32(&mut built.document, &uncarried.weights, 1)?;
        mesh_extras.unskinned_weights = Some(UnskinnedWeights {
            names: uncarried.names.clone(),
            groups,
            vertices,
            weights,
        });
    }
    if let Some((png, placeholder)) = thumbnail {
        let side = crate::picture::THUMBNAIL_SIDE;
        embed_thumbnail(
            &mut built.document,
            &mut buffer,
            &png,
            [side, side],
            placeholder,
        )?;
    }
    built.buffer = buffer.into_bytes();
    if let Some(mesh) = built.document.meshes.first_mut() {
        if let Some(value) = to_value(&MeshExtras { mpfb: mesh_extras }) {
            mesh.other.insert("extras".into(), value);
        }
    }
    Ok(())
}

/// What the summary reports of the written skins.
struct Statistics {
    max_influences: usize,
    unweighted_vertices: usize,
    attachment_unweighted: Vec<usize>,
}

impl Statistics {
    fn of(built: &BuiltCharacter, spec: &CharacterSpec, vertex_count: usize) -> Self {
        let mut max_influences = 0;
        let mut run = 0;
        for (i, entry) in built.skin.iter().enumerate() {
            run = if i > 0 && built.skin[i - 1].0 == entry.0 {
                run + 1
            } else {
                1
            };
            max_influences = max_influences.max(run);
        }
        let unweighted_vertices = if spec.influences.is_some() {
            unmoved(&built.skin, vertex_count)
        } else {
            0
        };
        let attachment_unweighted = built
            .attachment_skins
            .iter()
            .zip(&spec.attachments)
            .map(|(skin, attachment)| match attachment.influences {
                None => 0,
                Some(_) => unmoved(skin, attachment.mesh.positions.len()),
            })
            .collect();
        Self {
            max_influences,
            unweighted_vertices,
            attachment_unweighted,
        }
    }
}

/// How many of `vertex_count` vertices no entry of `skin` moves.
fn unmoved(skin: &[(u32, u32, f32)], vertex_count: usize) -> usize {
    let mut moved = vec![false; vertex_count];
    for e in skin {
        moved[e.0 as usize] = true;
    }
    moved.iter().filter(|m| !**m).count()
}

/// The copied images once the output is written: kept now, or, for a `.g4b` still to be
/// committed, held by it (kept when it is in place, released if it never is).
fn settle_copies(
    mut output: Output,
    copies: Vec<crate::atomic::SharedFile>,
) -> (Output, Vec<PathBuf>) {
    let (pending, images) = super::settle_copies(output.pending.take(), copies);
    output.pending = pending;
    (output, images)
}

/// What writing the files left: the `.g4b` to commit later, the external buffers, the bytes.
struct Output {
    pending: Option<crate::atomic::PendingFile>,
    external: Vec<PathBuf>,
    bytes: u64,
}

/// Encodes the built character in `format` and writes it (validated first when asked, the
/// validator's warnings and infos said, and refused when `--deny` names one), a `.g4b` now
/// or, with [`Commit::Later`], as a pending file.
fn output(
    built: &mut BuiltCharacter,
    options: &ConvertOptions,
    (format, commit): (OutputFormat, Commit),
    said: &mut Diagnostics,
) -> Result<Output, ConvertError> {
    let container = ContainerOptions {
        compression: options.compression,
        compress_json: matches!(options.compression, Compression::Zstd(_)),
        pretty: options.pretty,
    };
    let blobs = [std::mem::take(&mut built.buffer)];
    if format == OutputFormat::Binary {
        return write_g4b(
            &mut built.document,
            &blobs,
            container,
            (options, commit),
            said,
        );
    }
    let storage = if format == OutputFormat::TextExternal {
        let stem = options
            .output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Named by content: the old `.g4tf` keeps pointing at its own buffer until the new
        // one replaces it (see `atomic::replace_text_with_buffers`).
        let encoding = format!("{:?}", options.compression);
        TextBufferStorage::External(crate::atomic::buffer_name(&stem, &blobs[0], &encoding))
    } else {
        TextBufferStorage::Embedded
    };
    let text = write_g4tf(&mut built.document, &blobs, &storage, container)?;
    crate::timings::lap("write: encode");
    let bytes = text_bytes(&text.json, &text.external);
    let external = write_text(&text, options, said)?;
    Ok(Output {
        pending: None,
        external,
        bytes,
    })
}

/// Encodes a `.g4b` (validated first when asked) and writes it now or, with
/// [`Commit::Later`], as a pending file, unless `--deny` refuses something said.
fn write_g4b(
    document: &mut g4mf_writer::model::Document,
    blobs: &[Vec<u8>],
    container: ContainerOptions,
    (options, commit): (&ConvertOptions, Commit),
    said: &mut Diagnostics,
) -> Result<Output, ConvertError> {
    let file = g4b_parts(document, blobs, container)?;
    crate::timings::lap("write: encode");
    if options.validate {
        say_validation(said, check_valid(&file.to_vec(), &options.output)?, options);
    }
    said.refuse_denied(&options.output)?;
    let parts: Vec<&[u8]> = file.parts().collect();
    let written = crate::atomic::PendingFile::write(&options.output, &parts)
        .map_err(output_error(&options.output))?;
    let pending = match commit {
        Commit::Now => {
            written.commit().map_err(output_error(&options.output))?;
            None
        }
        Commit::Later => Some(written),
    };
    crate::timings::lap("write: file");
    Ok(Output {
        pending,
        external: Vec::new(),
        bytes: file.len() as u64,
    })
}

/// Writes a `.g4tf` and its external buffers (validated when asked: with external buffers,
/// once the new buffers are in place under their new names and before the `.g4tf` replaces
/// the old one, where `--deny` is checked too); the buffers written.
fn write_text(
    text: &g4mf_writer::TextFile,
    options: &ConvertOptions,
    said: &mut Diagnostics,
) -> Result<Vec<PathBuf>, ConvertError> {
    if text.external.is_empty() {
        if options.validate {
            say_validation(said, check_valid(&text.json, &options.output)?, options);
        }
        said.refuse_denied(&options.output)?;
    }
    let mut stopped = None;
    let written = crate::atomic::replace_text_with_buffers(
        &options.output,
        &text.json,
        &text.external,
        &mut |step| {
            if text.external.is_empty() || step != crate::atomic::Step::TextWritten {
                return Ok(());
            }
            let checked = match options.validate {
                true => check_valid(&text.json, &options.output)
                    .map(|findings| say_validation(said, findings, options)),
                false => Ok(()),
            };
            match checked.and_then(|()| said.refuse_denied(&options.output)) {
                Ok(()) => Ok(()),
                Err(e) => {
                    stopped = Some(e);
                    Err(std::io::Error::other("stopped before replacing"))
                }
            }
        },
    );
    if let Some(e) = stopped {
        return Err(e);
    }
    written.map_err(output_error(&options.output))
}

/// `--validate`: what the validator says of the valid file besides errors (which refused
/// it), each at its place in the output: warnings as warnings, infos as notes (each keeps the
/// validator's own code in its message).
fn say_validation(
    said: &mut Diagnostics,
    findings: Vec<g4mf_validator::Finding>,
    options: &ConvertOptions,
) {
    for finding in findings {
        let code = match finding.severity {
            g4mf_validator::Severity::Info => Code::ValidatorInfo,
            _ => Code::ValidatorWarning,
        };
        // The place is the diagnostic's location: the message keeps the validator's code.
        let message = format!("validator: {}: {}", finding.code, finding.message);
        let mut at = location::Location::file(&options.output);
        at.pointer = finding.pointer.clone();
        at.byte = finding.offset;
        said.push(Diagnostic::new(code, message).at(at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_encoding_is_refused_with_its_first_error() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("x.g4tf");
        match check_valid(br#"{"nodes": [{"name": "no asset"}]}"#, &output) {
            Err(ConvertError::Invalid { errors, first, .. }) => {
                assert!(errors > 0);
                assert!(!first.is_empty());
            }
            other => panic!("expected Invalid, got {other:?}"),
        }
        assert!(!output.exists());
    }
}
