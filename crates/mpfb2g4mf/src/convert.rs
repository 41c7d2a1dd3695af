//! The pipeline driver: [`run`] loads one job and converts it; `convert_loaded` runs the
//! stages (body, fit, assemble, shapes, wear, pose and names, helpers, finishing, write), in
//! order, over a loaded job; [`convert`] converts inputs a
//! library loaded itself. Only the entry points (the CLI and batches) call it; options,
//! errors and the summary live in their own modules so the stages never import the driver.

use crate::atomic::PendingFile;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::error::ConvertError;
use crate::inputs::{
    LoadedAssets, LoadedBody, LoadedJob, LoadedMaterial, LoadedMesh, LoadedPose, LoadedRig,
    LoadedShape, LoadedWearable, LoadedWeights, Loader,
};
use crate::job::Job;
use crate::options::{ConvertOptions, Helpers, OutputFormat, TextureMode};
use crate::stages::{
    self,
    assemble::{Assembled, MpfbExtras, assemble, file_name},
    body::Body,
    humanoid::{JobNames, Names},
    transforms::{self, Hidden},
    write::Commit,
};
use crate::summary::{DataUsed, InfluenceChanges, Summary, WornSummary};
use character::Character;
use glam::DVec3;
use mpfb_rig::RigLayout;
use std::sync::Arc;
use std::time::Instant;

/// What conversions derive from shared, unchanging inputs alone, remembered for the next
/// conversion of the same inputs (keyed by the inputs' identity, a bounded number of results
/// kept): one per batch, or per conversion. Each stage owns its part.
#[derive(Default)]
pub struct Derivations {
    assemble: stages::assemble::Derived,
    shapes: stages::shapes::Derived,
    wear: stages::wear::Derived,
    bind: stages::bind::Derived,
    transforms: transforms::Derived,
    dress: stages::dress::Derived,
    write: stages::write::Derived,
}

impl std::fmt::Debug for Derivations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Derivations").finish_non_exhaustive()
    }
}

/// Loads `job` (refusing a bad output extension, or an output that is one of its inputs,
/// before reading anything) and converts it.
pub fn run(job: &Job) -> Result<Summary, ConvertError> {
    job.options.format()?;
    job.check_output_is_not_an_input()?;
    crate::timings::lap("options");
    let loader = Loader::new(std::slice::from_ref(job));
    let loaded = loader.load(job)?;
    convert_loaded(
        &loaded,
        &job.options,
        job.data.clone(),
        &Derivations::default(),
    )
}

/// Converts a loaded job; `data` is the data folder it came from, for the summary. What it
/// derives from shared inputs alone is remembered in `derived` for the batch's next job.
pub(crate) fn convert_loaded(
    loaded: &LoadedJob,
    options: &ConvertOptions,
    data: Option<DataUsed>,
    derived: &Derivations,
) -> Result<Summary, ConvertError> {
    convert_loaded_with(loaded, options, data, derived, Commit::Now).map(|(summary, _)| summary)
}

/// [`convert_loaded`] with a `.g4b` output written to its temporary file but not synced or
/// in place: the caller commits the returned file (a `.g4tf` is written whole, and the file
/// is `None`).
pub(crate) fn convert_loaded_later(
    loaded: &LoadedJob,
    options: &ConvertOptions,
    data: Option<DataUsed>,
    derived: &Derivations,
) -> Result<(Summary, Option<PendingFile>), ConvertError> {
    convert_loaded_with(loaded, options, data, derived, Commit::Later)
}

fn convert_loaded_with(
    loaded: &LoadedJob,
    options: &ConvertOptions,
    data: Option<DataUsed>,
    derived: &Derivations,
    commit: Commit,
) -> Result<(Summary, Option<PendingFile>), ConvertError> {
    let parts = Parts {
        rig: &loaded.rig,
        mesh: &loaded.mesh,
        weights: loaded.weights.as_ref(),
        described: loaded.body.as_ref(),
        assets: &loaded.assets,
        worn: &loaded.worn,
        skin: loaded.skin.as_deref(),
        helper_eyes: loaded.helper_eyes.as_deref(),
    };
    convert_parts(parts, options, data, derived, commit)
}

/// Converts inputs loaded by the caller into a G4MF file at `options.output` (written
/// atomically), with the options that need no further file (no body, blend shapes or rest
/// pose: those come through a [`Job`]). What it derives from the inputs alone (the resolved
/// skin, the extracted helpers, the surfaces) is remembered in `derived` for the next
/// conversion of the same inputs; the inputs must not change while it holds them.
pub fn convert(
    rig: &Arc<LoadedRig>,
    mesh: &Arc<LoadedMesh>,
    weights: Option<&Arc<LoadedWeights>>,
    options: &ConvertOptions,
    derived: &Derivations,
) -> Result<Summary, ConvertError> {
    let assets = LoadedAssets::without_files(options, &rig.path)?;
    let parts = Parts {
        rig,
        mesh,
        weights,
        described: None,
        assets: &assets,
        worn: &[],
        skin: None,
        helper_eyes: None,
    };
    convert_parts(parts, options, None, derived, Commit::Now).map(|(summary, _)| summary)
}

/// A job's loaded inputs, as the stages take them.
#[derive(Clone, Copy)]
struct Parts<'a> {
    rig: &'a Arc<LoadedRig>,
    mesh: &'a Arc<LoadedMesh>,
    weights: Option<&'a Arc<LoadedWeights>>,
    /// The body description, when the mesh is morphed into one.
    described: Option<&'a LoadedBody>,
    assets: &'a LoadedAssets,
    worn: &'a [Arc<LoadedWearable>],
    skin: Option<&'a LoadedMaterial>,
    /// The material colouring the helper eyes' painted iris (`--eye-material`).
    helper_eyes: Option<&'a LoadedMaterial>,
}

/// What the summary reports of the character as it goes to the write stage (which takes it).
struct Facts {
    kept_vertices: usize,
    worn: Vec<WornSummary>,
    blend_shapes: usize,
    ground_offset: f64,
}

/// What the stages decided on the way, for the summary.
struct Decided {
    fallbacks: Vec<String>,
    humanoid: Option<Names>,
    influence_changes: Option<character::InfluenceChanges>,
    hidden_body_vertices: usize,
}

/// The stages in order: the mesh morphed into the described body when there is one, the rig
/// fitted, the character assembled, shaped, dressed in its assets, posed and named, its
/// helpers extracted, finished (ground, normals, influences, materials) and written. No stage
/// here reads a file.
fn convert_parts(
    parts: Parts<'_>,
    options: &ConvertOptions,
    data: Option<DataUsed>,
    derived: &Derivations,
    commit: Commit,
) -> Result<(Summary, Option<PendingFile>), ConvertError> {
    let started = Instant::now();
    let format = format_that_takes(parts, options)?;
    let body = body_of(parts, options)?;
    crate::timings::lap("body");
    let mut said = Diagnostics::denying(options.deny.clone());
    let fit = stages::fit::fit(
        parts.rig,
        parts.mesh,
        &body,
        options.allow_fallback,
        &mut said,
    )?;
    crate::timings::lap("fit");
    let assembled = assemble(
        parts.rig,
        parts.mesh,
        parts.weights,
        &body,
        &fit,
        parts.described,
        &parts.assets.bone_map,
        options,
        &derived.assemble,
        &mut said,
    )?;
    crate::timings::lap("assemble");
    let Assembled {
        character,
        mut extras,
    } = assembled;
    say_not_converted(parts, options, &mut said);
    let character = attach_shapes(character, parts, options, derived, &body, &mut said)?;
    let (character, hidden) = wear(character, &mut extras, parts, options, derived, &mut said)?;
    crate::timings::lap("wear");
    let at = (&hidden, &body);
    let (character, humanoid) = pose_and_name(character, parts, options, at, derived, &mut said)?;
    let character = extract_helpers(character, parts, options, &hidden, derived, &mut said);
    let (character, influence_changes) = finish(character, parts, options, &body, derived);
    let facts = facts_of(&character, &extras, &body, parts.mesh, &mut said);
    say_unskinned(parts, &mut said);
    let decided = Decided {
        fallbacks: fit.fallbacks,
        humanoid,
        influence_changes,
        hidden_body_vertices: hidden_body_vertices(options, &hidden),
    };
    said.refuse_denied(&options.output)?;
    let mut written = stages::write::write(
        character,
        extras,
        options,
        format,
        commit,
        &derived.write,
        &mut said,
    )
    .map_err(|e| made_by(parts, e))?;
    crate::timings::lap("write");
    let pending = written.pending.take();
    let mut summary = summary_of(parts, options, format, facts, decided, said, written);
    summary.data = data;
    summary.millis = started.elapsed().as_secs_f64() * 1e3;
    Ok((summary, pending))
}

/// A `.vrm` of a rig without weights is refused before any work: VRM's T-pose is judged on
/// the mesh, which no bone would move.
fn refuse_unskinned_vrm(parts: Parts<'_>, options: &ConvertOptions) -> Result<(), ConvertError> {
    match (&options.vrm, parts.weights) {
        (Some(_), None) => Err(ConvertError::VrmUnskinned {
            rig: parts.rig.path.clone(),
        }),
        _ => Ok(()),
    }
}

/// The body: the mesh as it is, or morphed into the described body, once the mesh (and, for a
/// `.vrm`, the weights' presence) is checked.
fn body_of(parts: Parts<'_>, options: &ConvertOptions) -> Result<Body, ConvertError> {
    refuse_unskinned_vrm(parts, options)?;
    check_mesh(parts.mesh, options)?;
    Ok(match parts.described {
        None => Body::from_mesh(parts.mesh, options.frame),
        Some(described) => Body::morphed(parts.mesh, options.frame, described)?,
    })
}

/// The character finished for writing: stood on the ground (or at its origin), smooth
/// normals unless flat, influences limited and normalised as asked, materials decided.
fn finish(
    character: Character,
    parts: Parts<'_>,
    options: &ConvertOptions,
    body: &Body,
    derived: &Derivations,
) -> (Character, Option<character::InfluenceChanges>) {
    // VRM's T-pose stands on what it shows (tpose.md 1.3): straight legs reach lower than
    // the rest's, and the ground cube sits a little below the soles.
    let ground = match parts.assets.rest_pose {
        Some(LoadedPose::ComputedVrmTPose) => {
            transforms::lowest_shown(&character).or(body.ground_height())
        }
        _ => body.ground_height(),
    };
    let character = transforms::stand(character, options.origin, ground);
    crate::timings::lap("pose, names, helpers");
    let character = if options.flat {
        character
    } else {
        transforms::smooth_normals(character)
    };
    crate::timings::lap("normals");
    let (character, influence_changes) = transforms::limit_influences(
        character,
        options.max_influences,
        options.normalize,
        &derived.transforms,
    );
    let character = dress(character, parts, options, derived);
    crate::timings::lap("influences, materials");
    (character, influence_changes)
}

/// Body vertices the worn assets hide and the file leaves out (none with `keep_hidden_body`).
fn hidden_body_vertices(options: &ConvertOptions, hidden: &Hidden) -> usize {
    if options.keep_hidden_body {
        0
    } else {
        hidden.vertices.iter().filter(|&&h| h).count()
    }
}

/// The summary of a conversion from its inputs, what the stages found and decided, what they
/// said, and what the write stage wrote (`data` and `millis` are the caller's to fill).
fn summary_of(
    parts: Parts<'_>,
    options: &ConvertOptions,
    format: OutputFormat,
    facts: Facts,
    decided: Decided,
    said: Diagnostics,
    written: stages::write::Written,
) -> Summary {
    let (warnings, notes) = said.into_warnings_and_notes();
    Summary {
        output: options.output.clone(),
        external: written.external,
        images: written.images,
        format,
        bytes: written.bytes,
        rig: format!(
            "{} ({})",
            file_name(&parts.rig.path),
            layout_name(parts.rig.rig.source_layout)
        ),
        bones: parts.rig.rig.bones.len(),
        joints: written.joints,
        mesh_vertices: parts.mesh.obj.positions.len(),
        kept_vertices: facts.kept_vertices,
        faces: written.faces,
        weights: parts.weights.map(|w| file_name(&w.path)),
        weight_pairs: written.weight_pairs,
        max_influences: written.max_influences,
        unweighted_vertices: written.unweighted_vertices,
        fallbacks: decided.fallbacks,
        notes,
        warnings,
        ground_offset: facts.ground_offset,
        humanoid: decided.humanoid.map(|n| crate::summary::HumanoidSummary {
            source: n.source,
            table: n.table,
            not_placed: n.not_placed,
        }),
        influence_changes: decided.influence_changes.map(|c| InfluenceChanges {
            vertices_changed: c.vertices_changed,
            influences_dropped: c.influences_dropped,
            largest_dropped: c.largest_dropped,
        }),
        blend_shapes: facts.blend_shapes,
        vrm: written.vrm,
        worn: facts.worn,
        hidden_body_vertices: decided.hidden_body_vertices,
        data: None,
        millis: 0.0,
    }
}

/// Refuses a mesh that is not MakeHuman's base mesh (unless any topology is allowed) and one
/// whose coordinates the scale carries past f32's range: G4MF stores f32, so this is said
/// here, naming the mesh, not found later as an infinite accessor value.
fn check_mesh(mesh: &LoadedMesh, options: &ConvertOptions) -> Result<(), ConvertError> {
    if !options.any_topology && mesh.obj.positions.len() != mpfb_body::BASE_MESH_VERTICES {
        return Err(ConvertError::Topology {
            mesh: mesh.path.clone(),
            vertices: mesh.obj.positions.len(),
            expected: mpfb_body::BASE_MESH_VERTICES,
        });
    }
    let largest = mesh
        .obj
        .positions
        .iter()
        .flatten()
        .fold(0.0f64, |m, c| m.max(c.abs()));
    if !((largest * options.frame.scale) as f32).is_finite() {
        return Err(ConvertError::OutOfRange {
            mesh: mesh.path.clone(),
            largest,
            scale: options.frame.scale,
        });
    }
    if mesh.obj.face_count() == 0 {
        return Err(ConvertError::NoFaces {
            mesh: mesh.path.clone(),
            why: "the mesh has no faces (`f` lines): nothing to write",
        });
    }
    Ok(())
}

/// The output's format, when it can take the rig: a rig a glTF skin cannot address is refused
/// before it is fitted and assembled (a 100,000-bone rig took 4 s and 1 GB to be refused by
/// the writer, whose own check stays for the bones worn assets add).
fn format_that_takes(
    parts: Parts<'_>,
    options: &ConvertOptions,
) -> Result<OutputFormat, ConvertError> {
    let format = options.format()?;
    let bones = parts.rig.rig.bones.len();
    if format.is_gltf() && bones > gltf_writer::MAX_JOINTS {
        let error = ConvertError::Gltf(gltf_writer::GltfError::TooManyJoints(bones));
        return Err(made_by(parts, error));
    }
    Ok(format)
}

/// A writer's refusal named by the input that made the part it refused: a bone the rig's, a
/// face, vertex or shape the mesh's (or the worn asset's its mesh is named after), an
/// influence the weights', a texture its material's. Other errors pass as they are.
fn made_by(parts: Parts<'_>, error: ConvertError) -> ConvertError {
    use g4mf_writer::WriteError as W;
    use gltf_writer::GltfError as G;
    let asset_named = |mesh: &str| {
        parts
            .worn
            .iter()
            .find(|a| mesh.starts_with(&a.proxy.name))
            .map(|a| a.path.clone())
    };
    let weights = || parts.weights.map_or(&parts.rig.path, |w| &w.path).clone();
    let material = || parts.skin.map_or(&parts.mesh.path, |m| &m.path).clone();
    let file = match &error {
        ConvertError::Write(W::BadBone { .. }) | ConvertError::Gltf(G::BadBone { .. }) => {
            parts.rig.path.clone()
        }
        ConvertError::Write(W::NonFinite { what }) | ConvertError::Gltf(G::NonFinite { what })
            if what.starts_with("bone ") || what.starts_with("the skeleton") =>
        {
            parts.rig.path.clone()
        }
        ConvertError::Gltf(G::TooManyJoints(_)) => parts.rig.path.clone(),
        ConvertError::Write(W::NonFinite { what }) | ConvertError::Gltf(G::NonFinite { what })
            if what.starts_with("material") =>
        {
            material()
        }
        ConvertError::Write(W::BadInfluence { .. }) => weights(),
        ConvertError::Gltf(G::BadInfluence { mesh, .. }) => {
            asset_named(mesh).unwrap_or_else(weights)
        }
        ConvertError::Gltf(G::BadMesh { mesh, .. }) => {
            asset_named(mesh).unwrap_or_else(|| parts.mesh.path.clone())
        }
        ConvertError::Write(W::BadTexture { .. }) | ConvertError::Gltf(G::BadTexture { .. }) => {
            material()
        }
        ConvertError::Write(W::BadFace { .. } | W::NonFinite { .. })
        | ConvertError::Gltf(G::NonFinite { .. }) => parts.mesh.path.clone(),
        _ => return error,
    };
    ConvertError::Made {
        file,
        source: Box::new(error),
    }
}

/// The fit's warnings, then what a description asked for that is not converted: its lines
/// we do not read, and assets
/// without an assets folder to find them in; and the colour `--eye-material` gave the helper
/// eyes ([`say_helper_iris`]).
fn say_not_converted(parts: Parts<'_>, options: &ConvertOptions, said: &mut Diagnostics) {
    say_helper_iris(parts, options, said);
    if let Some(described) = parts.described {
        let source = || {
            described
                .source
                .as_deref()
                .map_or_else(|| "the description".to_owned(), file_name)
        };
        // The description's file, when it came from one.
        let described_at = || described.source.as_deref().map(location::Location::file);
        let ignored = matches!(options.pose, Some(crate::options::PoseBake::Ignore));
        if let Some(pose) = described.description.pose.as_ref() {
            if options.vrm.is_some() && !ignored {
                said.push(Diagnostic::new(
                    Code::DescriptionPoseLeftOut,
                    format!(
                        "not converted from {}: pose {} (a .vrm's rest is VRM's T-pose; write a .glb for its pose as a clip, or give --pose none)",
                        source(),
                        location::text::excerpt(&pose.file, 80)
                    ),
                ).at_maybe(described_at()));
            }
        }
        if !described.description.not_converted.is_empty() {
            said.push(
                Diagnostic::new(
                    Code::DescriptionNotConverted,
                    format!(
                        "not converted from {}: {}",
                        source(),
                        described.description.not_converted.join(", ")
                    ),
                )
                .at_maybe(described_at()),
            );
        }
    }
    if !parts.assets.not_worn.is_empty() {
        said.say(
            Code::AssetsNotFound,
            format!(
                "not converted (no MakeHuman assets folder: give --assets DIR, set $MAKEHUMAN_ASSETS or run `mpfb2g4mf data fetch --makehuman-assets`): {}",
                parts.assets.not_worn.join(", ")
            ),
        );
    }
}

/// The blend shapes stage 1 read, with the description's kept detail targets, and
/// MakeHuman's expressions on this body (its skeleton fitted once): those asked as shapes
/// added, the one asked baked into the rest (before the assets are fitted, so they follow the
/// face; said as a note). Units an expression names that the pose units lack are skipped and
/// said, as MPFB skips unknown face units.
fn attach_shapes(
    character: Character,
    parts: Parts<'_>,
    options: &ConvertOptions,
    derived: &Derivations,
    body: &Body,
    said: &mut Diagnostics,
) -> Result<Character, ConvertError> {
    let kept_shapes = parts.described.map_or(&[][..], |d| d.shapes.as_slice());
    let mut all_shapes: Vec<LoadedShape> = parts
        .assets
        .shapes
        .iter()
        .chain(kept_shapes)
        .cloned()
        .collect();
    let positions: Vec<glam::DVec3>;
    let face = match &parts.assets.expressions {
        Some(loaded) => {
            positions = body.g4mf_positions().collect();
            Some(stages::expressions::Face::fit(loaded, &positions)?)
        }
        None => None,
    };
    if let Some(face) = &face {
        all_shapes.extend(face.shapes(said));
    }
    let mut character =
        stages::shapes::attach(character, &all_shapes, options.frame, &derived.shapes)?;
    if let Some(face) = &face {
        character = face.bake(character, said);
    }
    if let Some(expression) = parts.assets.mpfb_expression.as_deref() {
        character = stages::expressions::bake_mpfb(character, expression, said);
    }
    crate::timings::lap("blend shapes");
    Ok(character)
}

/// The worn assets, fitted and skinned; what they hide of the body.
fn wear(
    character: Character,
    extras: &mut MpfbExtras,
    parts: Parts<'_>,
    options: &ConvertOptions,
    derived: &Derivations,
    said: &mut Diagnostics,
) -> Result<(Character, Hidden), ConvertError> {
    stages::wear::wear(
        character,
        extras,
        parts.worn,
        stages::wear::WearOptions {
            materials: options.materials,
            allow_fallback: options.allow_fallback,
        },
        said,
        &derived.wear,
    )
}

/// Humanoid names found (to rename with, to find the limbs of a computed T-pose, and the
/// bones unweighted face helpers belong to), unweighted face helpers bound, the rest pose
/// baked and the bones renamed; the names when the character was renamed.
fn pose_and_name(
    character: Character,
    parts: Parts<'_>,
    options: &ConvertOptions,
    (hidden, body): (&Hidden, &Body),
    derived: &Derivations,
    said: &mut Diagnostics,
) -> Result<(Character, Option<Names>), ConvertError> {
    let assets = parts.assets;
    let computed_t_pose = matches!(&assets.rest_pose, Some(pose) if pose.is_computed());
    let job_names = JobNames::new(&assets.humanoid, &parts.rig.path);
    // Asked for, the names must be found; the helpers and a pose's retargeting take them when
    // they need them.
    let names = if assets.rename_humanoid || computed_t_pose {
        Some(job_names.get(&character)?)
    } else {
        None
    };
    let face_parts: Vec<&str> = match options.helpers {
        Helpers::None => Vec::new(),
        _ => transforms::FACE_PARTS
            .iter()
            .copied()
            .filter(|p| !hidden.parts.contains(p))
            .collect(),
    };
    let character = stages::bind::bind_unweighted_helpers(
        character,
        &face_parts,
        &job_names,
        said,
        &derived.bind,
    )?;
    let leg = leg_of(parts, body)?;
    let at = (leg, &job_names);
    let character = make_clips(character, parts, options, at, said)?;
    let character = bake_rest(character, parts, options, at, names, said)?;
    let Some(names) = names.filter(|_| assets.rename_humanoid) else {
        return Ok((character, None));
    };
    let character = stages::humanoid::rename(character, &names.table, &names.source, said)?;
    if !names.not_placed.is_empty() {
        said.say(
            Code::HumanoidNotPlaced,
            format!(
                "humanoid {} ({} bones); not placed: {}",
                names.source,
                names.table.len(),
                names.not_placed.join(", ")
            ),
        );
    }
    // A `.vrm` always has humanoid names (options ask for them).
    stages::humanoid::check_vrm(&character, options.vrm.is_some(), &parts.rig.path)?;
    Ok((character, job_names.into_made()))
}

/// The rest pose asked (`--rest-pose`) or the BVH pose (`--pose`, a description's line)
/// baked into the rest (options refuse both at once).
fn bake_rest(
    character: Character,
    parts: Parts<'_>,
    options: &ConvertOptions,
    at: (Option<f64>, &JobNames<'_>),
    names: Option<&Names>,
    said: &mut Diagnostics,
) -> Result<Character, ConvertError> {
    let character = match &parts.assets.rest_pose {
        None => character,
        Some(pose) => {
            let (posed, source) =
                stages::rest_pose::posed_frames(&character, pose, &parts.rig.path, names, said)?;
            let from = match pose {
                LoadedPose::File { source, .. } => Some(location::Location::file(source)),
                _ => None,
            };
            said.push(
                Diagnostic::new(
                    Code::RestPoseBaked,
                    format!("rest pose baked from {source}"),
                )
                .at_maybe(from),
            );
            stages::rest_pose::bake(character, &posed)?
        }
    };
    bake_pose(character, parts, options, at, said)
}

/// The body's leg length MakeHuman scales a BVH root's move by, measured once for the job's
/// pose and clips (`None` without them or without MakeHuman's default skeleton).
fn leg_of(parts: Parts<'_>, body: &Body) -> Result<Option<f64>, ConvertError> {
    let Some(poses) = parts.assets.poses.as_deref() else {
        return Ok(None);
    };
    let positions: Vec<DVec3> = body.g4mf_positions().collect();
    stages::pose::leg_length(poses, &positions)
}

/// Whether `motion` is a description's pose line written as a one-frame clip: on glTF
/// outputs the rest stays and the pose is a clip named after it.
fn line_as_clip(motion: &crate::poses::LoadedMotion, options: &ConvertOptions) -> bool {
    motion.file.described
        && OutputFormat::of_path(&options.output, false).is_some_and(OutputFormat::is_gltf)
}

/// The clips asked (`--animation`, and a description's pose line on glTF outputs as a clip
/// of its frame), each frame posed on the rest as it is now (before any bake: clip poses are
/// absolute, so they stay right when the rest changes after).
fn make_clips(
    mut character: Character,
    parts: Parts<'_>,
    options: &ConvertOptions,
    (leg, names): (Option<f64>, &JobNames<'_>),
    said: &mut Diagnostics,
) -> Result<Character, ConvertError> {
    let Some(poses) = parts.assets.poses.as_deref() else {
        return Ok(character);
    };
    let line = poses.bake.as_ref().filter(|m| line_as_clip(m, options));
    if poses.clips.is_empty() && line.is_none() {
        return Ok(character);
    }
    for motion in line.into_iter().chain(&poses.clips) {
        let frames = match line {
            Some(l) if std::ptr::eq(l, motion) => motion.file.frame..motion.file.frame + 1,
            _ => 0..motion.bvh.frame_count(),
        };
        let at = (leg, parts.rig.path.as_path(), names);
        let clip = stages::pose::clip(&character, motion, frames, poses, at, said)?;
        said.say_at(
            Code::ClipMade,
            location::Location::file(&motion.file.path),
            clip.note,
        );
        character.clips.push(clip.clip);
    }
    Ok(character)
}

/// The BVH pose asked (`--pose`, a description's `pose` line) baked into the rest, every worn
/// asset following; said as a note (its file, frame, route and root move).
fn bake_pose(
    character: Character,
    parts: Parts<'_>,
    options: &ConvertOptions,
    (leg, names): (Option<f64>, &JobNames<'_>),
    said: &mut Diagnostics,
) -> Result<Character, ConvertError> {
    let Some(poses) = parts.assets.poses.as_deref() else {
        return Ok(character);
    };
    let Some(motion) = poses.bake.as_ref().filter(|m| !line_as_clip(m, options)) else {
        return Ok(character);
    };
    let posed = stages::pose::posed(
        &character,
        motion,
        motion.file.frame,
        poses,
        (leg, &parts.rig.path, names),
        said,
    )?;
    let from = if motion.file.described {
        " (the description's pose line)"
    } else {
        ""
    };
    said.say_at(
        Code::PoseBaked,
        location::Location::file(&motion.file.path),
        format!("{} baked into the rest{from}", posed.note),
    );
    stages::rest_pose::bake(character, &posed.frames)
}

/// Helper geometry kept or dropped as asked (and the body under worn assets masked), then the
/// blend shapes extraction emptied pruned.
fn extract_helpers(
    character: Character,
    parts: Parts<'_>,
    options: &ConvertOptions,
    hidden: &Hidden,
    derived: &Derivations,
    said: &mut Diagnostics,
) -> Character {
    let moved: Vec<bool> = character
        .blend_shapes
        .iter()
        .map(|s| !s.offsets.is_empty())
        .collect();
    let character = transforms::extract_helpers(
        character,
        options.helpers,
        hidden,
        options.keep_hidden_body,
        &file_name(&parts.mesh.path),
        said,
        &derived.transforms,
    );
    stages::shapes::prune(character, &moved, said)
}

/// A material for every polygon, when materials are written.
fn dress(
    character: Character,
    parts: Parts<'_>,
    options: &ConvertOptions,
    derived: &Derivations,
) -> Character {
    if !options.materials {
        return character;
    }
    let race = parts.described.map_or_else(
        || mpfb_body::Phenotype::default().race,
        |d| d.description.phenotype.race,
    );
    // Helper eyes get their painted iris unless no images are wanted (then their flat sclera
    // colour stays, as factors are all `--textures none` keeps).
    let family = helper_iris_family(parts).0;
    let helper_iris = (options.textures != TextureMode::None)
        .then(|| parts.mesh.helper_iris(family))
        .flatten();
    let wardrobe = stages::dress::Wardrobe {
        skin: parts.skin,
        helper_iris,
    };
    stages::dress::dress(character, race, wardrobe, &derived.dress)
}

/// The colour family of the helper eyes' painted iris, and whether a known family was found:
/// the one `--eye-material`'s file name or `name` line gives (its image is drawn in MakeHuman's
/// eye-texture layout, not the helper eyes'), else MakeHuman's default brown.
fn helper_iris_family(parts: Parts<'_>) -> (&'static str, bool) {
    let Some(material) = parts.helper_eyes else {
        return (crate::iris::HELPER_FAMILY, true);
    };
    let stem = material
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let names = std::iter::once(stem.as_str()).chain(material.file.name.as_deref());
    match crate::iris::family_named(names) {
        Some(family) => (family, true),
        None => (crate::iris::HELPER_FAMILY, false),
    }
}

/// Says which colour `--eye-material` gave the helper eyes' painted iris: it is guessed from
/// the material's name, so the summary always names it (and says when no iris is painted).
fn say_helper_iris(parts: Parts<'_>, options: &ConvertOptions, said: &mut Diagnostics) {
    let Some(material) = parts.helper_eyes else {
        return;
    };
    let file = file_name(&material.path);
    let (family, known) = helper_iris_family(parts);
    let [r, g, b] = crate::iris::iris_srgb(family);
    let (code, message) = if options.helpers == Helpers::None {
        (
            Code::HelperIrisNotDrawn,
            format!("helper eyes: `--helpers none` keeps no eyes: {file}'s colour is not drawn"),
        )
    } else if !options.materials || options.textures == TextureMode::None {
        (
            Code::HelperIrisNotDrawn,
            format!(
                "helper eyes: no iris is painted (no materials or `--textures none`): {file}'s colour is not drawn"
            ),
        )
    } else if known {
        (
            Code::HelperIrisFromName,
            format!(
                "helper eyes: iris painted `{family}` (sRGB {r} {g} {b}), the colour the name of {file} gives (its image is not drawn on helper eyes)"
            ),
        )
    } else {
        let families: Vec<&str> = crate::iris::IRIS_SRGB.iter().map(|(n, _)| *n).collect();
        (
            Code::HelperIrisUnknown,
            format!(
                "helper eyes: {file} names no iris colour we know ({}): iris painted `{family}` (sRGB {r} {g} {b})",
                families.join(", ")
            ),
        )
    };
    said.say_at(code, location::Location::file(&material.path), message);
}

/// What the summary needs of the finished character before the write stage takes it; the
/// body's height said when it is far from a human's.
fn facts_of(
    character: &Character,
    extras: &MpfbExtras,
    body: &Body,
    mesh: &LoadedMesh,
    said: &mut Diagnostics,
) -> Facts {
    let height_warning = match &extras.mesh.topology {
        // A body topology replaced the mesh: its vertices are not the OBJ's, so the fitted
        // mesh itself is measured (G4MF space is the OBJ's Y-up frame times the scale).
        Some(_) => {
            let scale = body.frame.scale;
            let y_up = mpfb_rig::ObjFrame {
                scale,
                up: mpfb_rig::UpAxis::Y,
            };
            y_up.check_height(character.mesh.positions.iter().map(|p| *p / scale))
        }
        None => body.frame.check_height(
            character
                .mesh
                .numbering
                .source
                .iter()
                .map(|&v| DVec3::from_array(mesh.obj.positions[v as usize])),
        ),
    }
    .map(|w| w.to_string());
    if let Some(warning) = height_warning {
        said.say_at(
            Code::BodyScale,
            location::Location::file(&mesh.path),
            warning,
        );
    }
    Facts {
        kept_vertices: character.mesh.positions.len(),
        worn: extras
            .worn()
            .map(|a| WornSummary {
                kind: a.kind.clone(),
                name: a.name.clone(),
                weights: a.weights.clone(),
            })
            .collect(),
        blend_shapes: character.blend_shapes.len(),
        ground_offset: character.skeleton.position.y,
    }
}

/// A skeleton beside a mesh no bone moves is rarely what a user wanted: said.
fn say_unskinned(parts: Parts<'_>, said: &mut Diagnostics) {
    if parts.weights.is_none() {
        said.say(
            Code::SkinNoWeights,
            format!(
                "no weights for {}: the mesh is unskinned and no bone moves it (give --weights)",
                file_name(&parts.rig.path)
            ),
        );
    }
}

/// The rig file's layout, as the summary names it.
fn layout_name(layout: RigLayout) -> &'static str {
    match layout {
        RigLayout::Bare => "bare",
        RigLayout::V100 => "version 100",
        RigLayout::V110 => "version 110",
    }
}
