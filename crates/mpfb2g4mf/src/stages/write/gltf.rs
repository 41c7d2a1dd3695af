//! The glTF 2.0 output of the write stage: the spec written by `gltf-writer` (at most
//! `--max-influences` influences a vertex, four by default), checked against glTF's schema
//! rules by `gltf-json`'s validation when asked, then `.glb` (now, or later as a pending file)
//! or `.gltf` with its buffer embedded or beside it as a pair, atomically.

use super::{
    Commit, Kept, TextureTable, Written, copy_images, output_error, say_unweighted, settle_copies,
    text_bytes,
};
use crate::diagnostics::{Code, Diagnostics};
use crate::error::ConvertError;
use crate::options::{ConvertOptions, GLTF_DEFAULT_INFLUENCES, OutputFormat};
use g4mf_writer::CharacterSpec;
use gltf_writer::json::validation::Validate;
use gltf_writer::{BufferStorage, BuiltGltf, ContainerOptions, GltfOptions};
use std::path::{Path, PathBuf};

/// Writes `spec` as glTF in `format` (`.glb` or `.gltf`); what it finds worth a word is said
/// before the file is written.
// One argument per decision the driver made; grouping them would hide what the writer needs.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_gltf(
    spec: CharacterSpec,
    kept: Kept,
    options: &ConvertOptions,
    format: OutputFormat,
    commit: Commit,
    textures: &TextureTable,
    (thumbnail, clips): (Option<Vec<u8>>, Vec<gltf_writer::ClipSpec>),
    said: &mut Diagnostics,
) -> Result<Written, ConvertError> {
    let layout = GltfOptions {
        max_influences: options.max_influences.unwrap_or(GLTF_DEFAULT_INFLUENCES),
    };
    let mut built = gltf_writer::build_gltf(&spec, &layout)?;
    crate::timings::lap("write: build");
    let (vrm_summary, clip_files) =
        vrm_or_clips(&mut built, &spec, options, format, (thumbnail, clips), said)?;
    if options.validate {
        check_valid(&built, &options.output)?;
    }
    let body = spec
        .mesh
        .is_some()
        .then(|| built.meshes.first().copied())
        .flatten();
    let attachment_unweighted: Vec<usize> = built.meshes[usize::from(body.is_some())..]
        .iter()
        .map(|m| m.given_to_root)
        .collect();
    let unweighted = body.map_or(0, |b| b.given_to_root);
    say_unweighted(said, &kept, (unweighted, &attachment_unweighted), true);
    mesh_notes(&built.meshes, layout.max_influences, said);
    said.refuse_denied(&options.output)?;
    let copies = copy_images(textures)?;
    let mut output = output(
        &mut built,
        &options.output,
        (options.pretty, format, commit),
        clip_files.files,
    )?;
    output.2 += clip_files.bytes;
    let (pending, images) = settle_copies(output.0, copies);
    let skinned = built.meshes.iter().any(|m| m.influence_sets > 0);
    let weight_pairs = weight_pairs(&spec);
    Ok(Written {
        pending,
        external: output.1,
        bytes: output.2,
        joints: if skinned { spec.bones.len() } else { 0 },
        weight_pairs,
        max_influences: body.map_or(0, |b| b.max_influences),
        unweighted_vertices: unweighted,
        faces: kept.faces,
        images,
        vrm: vrm_summary,
    })
}

/// A `.vrm` made of `built` with its clips as `.vrma` files to commit with it (and their
/// bytes), or, for any other glTF, the clips added as animations; what the VRM added (what
/// it noted is said).
fn vrm_or_clips(
    built: &mut BuiltGltf,
    spec: &CharacterSpec,
    options: &ConvertOptions,
    format: OutputFormat,
    (thumbnail, clips): (Option<Vec<u8>>, Vec<gltf_writer::ClipSpec>),
    said: &mut Diagnostics,
) -> Result<(Option<crate::summary::VrmSummary>, super::vrma::ClipFiles), ConvertError> {
    let Some(vrm) = options.vrm.as_ref().filter(|_| format == OutputFormat::Vrm) else {
        // The clips stage said what each clip is.
        gltf_writer::add_clips(built, spec, &clips)?;
        return Ok((None, super::vrma::ClipFiles::default()));
    };
    let (summary, humanoid) = make_vrm(built, spec, vrm, thumbnail, &options.output, said)?;
    crate::timings::lap("write: vrm");
    let files = super::vrma::write_clips(spec, &humanoid, &clips, options, said)?;
    Ok((Some(summary), files))
}

/// How many (vertex, bone) pairs carry a weight above zero.
fn weight_pairs(spec: &CharacterSpec) -> usize {
    spec.influences
        .as_ref()
        .map_or(0, |i| i.list().iter().filter(|i| i.weight > 0.0).count())
}

/// What making a `.vrm` added (the summary) and mapped (VRM name -> bone index).
pub(crate) type MadeVrm = (
    crate::summary::VrmSummary,
    std::collections::BTreeMap<String, usize>,
);

/// Makes the built glTF a VRM avatar (`VRMC_vrm`, `VRMC_springBone`) as `crate::vrm` decides
/// it from `spec`; what deciding it noticed, one note each, what it added, and its humanoid
/// map (VRM name -> bone index).
pub(crate) fn make_vrm(
    built: &mut BuiltGltf,
    spec: &CharacterSpec,
    options: &crate::vrm::VrmOptions,
    thumbnail: Option<Vec<u8>>,
    output: &Path,
    said: &mut Diagnostics,
) -> Result<MadeVrm, ConvertError> {
    let described = crate::vrm::describe(spec, options, thumbnail.map(std::sync::Arc::new), said)
        .map_err(|source| ConvertError::VrmHumanoid {
        rig: output.to_path_buf(),
        source,
    })?;
    let written = vrm_writer::make_vrm(built, spec, &described.vrm)?;
    let summary = crate::summary::VrmSummary {
        human_bones: written.human_bones,
        expressions: written.expressions,
        morph_target_binds: written.morph_target_binds,
        look_at: described.vrm.look_at.as_ref().map(|l| match l.kind {
            vrm_writer::LookAtKind::Bone => "bone",
            vrm_writer::LookAtKind::Expression => "expression",
        }),
        springs: written.springs,
        spring_joints: written.spring_joints,
        colliders: written.colliders,
        thumbnail: written.thumbnail_image.is_some(),
    };
    Ok((summary, described.vrm.humanoid))
}

/// What the glTF writer changed of the meshes, one line each: influences dropped beyond
/// `max_influences` (none when the pipeline limited them first), tangents of mirrored faces.
pub(crate) fn mesh_notes(
    meshes: &[gltf_writer::WrittenMesh],
    max_influences: usize,
    said: &mut Diagnostics,
) {
    let dropped: usize = meshes.iter().map(|m| m.influences_dropped).sum();
    if dropped > 0 {
        said.say(Code::InfluencesDropped, format!(
            "{dropped} influences dropped beyond {max_influences} a vertex (the strongest kept, renormalised; --max-influences keeps more)"
        ));
    }
    let conflicts: usize = meshes.iter().map(|m| m.tangent_conflicts).sum();
    if conflicts > 0 {
        said.say(Code::TangentsMirrored, format!(
            "{conflicts} vertices have mirrored texture coordinates on their faces: their tangents keep the first face's handedness"
        ));
    }
}

/// The document checked by `gltf-json`'s validation (every index in range, every required
/// property set): a document that fails is an error before anything is written.
pub(crate) fn check_valid(built: &BuiltGltf, output: &Path) -> Result<(), ConvertError> {
    let mut problems = Vec::new();
    built.root.validate(
        &built.root,
        gltf_writer::json::Path::new,
        &mut |path: &dyn Fn() -> gltf_writer::json::Path, error| {
            problems.push(format!("{}: {error:?}", path()));
        },
    );
    match problems.first() {
        None => Ok(()),
        Some(first) => Err(ConvertError::Invalid {
            path: output.to_path_buf(),
            errors: problems.len(),
            first: first.clone(),
        }),
    }
}

/// What writing a glTF file left: the `.glb` to commit later, the external buffers, the bytes.
pub(crate) type Output = (Option<crate::atomic::PendingFile>, Vec<PathBuf>, u64);

/// Encodes the built character in `format` and writes it to `path`: a `.glb` now or, with
/// [`Commit::Later`], as a pending file, with the files that go beside it (`siblings`, a
/// `.vrm`'s `.vrma` clips) put in place with it; a `.gltf` with its buffer replaced as a pair.
pub(crate) fn output(
    built: &mut BuiltGltf,
    path: &Path,
    (pretty, format, commit): (bool, OutputFormat, Commit),
    siblings: Vec<crate::atomic::PendingFile>,
) -> Result<Output, ConvertError> {
    let container = ContainerOptions { pretty };
    if format.is_glb() {
        let file = gltf_writer::glb_parts(built, container)?;
        crate::timings::lap("write: encode");
        let parts: Vec<&[u8]> = file.parts().collect();
        let written = crate::atomic::PendingFile::write(path, &parts)
            .map_err(output_error(path))?
            .with_siblings(siblings);
        let pending = match commit {
            Commit::Now => {
                written.commit().map_err(output_error(path))?;
                None
            }
            Commit::Later => Some(written),
        };
        crate::timings::lap("write: file");
        return Ok((pending, Vec::new(), file.len() as u64));
    }
    let storage = if format == OutputFormat::GltfExternal {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Named by content, as a `.g4tf`'s: the old `.gltf` keeps its own buffer until the new
        // one replaces it.
        BufferStorage::External(crate::atomic::buffer_name(&stem, &built.buffer, "gltf"))
    } else {
        BufferStorage::Embedded
    };
    let text = gltf_writer::gltf_text(built, &storage, container)?;
    crate::timings::lap("write: encode");
    let bytes = text_bytes(&text.json, &text.external);
    let external =
        crate::atomic::replace_text_with_buffers(path, &text.json, &text.external, &mut |_| Ok(()))
            .map_err(output_error(path))?;
    Ok((None, external, bytes))
}
