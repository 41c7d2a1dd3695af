//! The pipeline driver: [`run`] loads one job and converts it; [`convert_loaded`] runs the
//! stages of [`crate::stages`], in order, over a loaded job; [`convert`] converts inputs a
//! library loaded itself. Only the entry points (the CLI and batches) call it; options,
//! errors and the summary live in their own modules so the stages never import the driver.

use crate::atomic::PendingFile;
use crate::error::ConvertError;
use crate::inputs::{
    LoadedAssets, LoadedBody, LoadedJob, LoadedMesh, LoadedRig, LoadedWeights, Loader,
};
use crate::job::Job;
use crate::options::ConvertOptions;
use crate::stages::{
    self,
    assemble::{Assembled, assemble, file_name},
    body::Body,
    transforms,
    write::Commit,
};
use crate::summary::{DataUsed, InfluenceChanges, Summary, Warning, WarningKind, WornSummary};
use glam::DVec3;
use mpfb_rig::RigLayout;
use std::sync::Arc;
use std::time::Instant;

/// What conversions derive from shared, unchanging inputs alone, remembered for the next
/// conversion of the same inputs (see [`crate::derived`]): one per batch, or per conversion.
/// Each stage owns its part.
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

/// Loads `job` (refusing a bad output extension before reading anything) and converts it.
pub fn run(job: &Job) -> Result<Summary, ConvertError> {
    job.options.format()?;
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
pub fn convert_loaded(
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
pub fn convert_loaded_later(
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
    convert_parts(
        &loaded.rig,
        &loaded.mesh,
        loaded.weights.as_ref(),
        loaded.body.as_ref(),
        &loaded.assets,
        &loaded.worn,
        loaded.skin.as_deref(),
        options,
        data,
        derived,
        commit,
    )
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
    convert_parts(
        rig,
        mesh,
        weights,
        None,
        &assets,
        &[],
        None,
        options,
        None,
        derived,
        Commit::Now,
    )
    .map(|(summary, _)| summary)
}

/// The stages in order: the mesh morphed into the `described` body when one is given, the rig
/// fitted, the character assembled, and the `assets` stage 1 read (blend shapes, with the
/// description's kept detail targets; a rest pose; a humanoid table; a bone map) applied.
/// No stage here reads a file.
// One argument per loaded input: grouping them would hide which stage needs what.
#[allow(clippy::too_many_arguments)]
fn convert_parts(
    rig: &Arc<LoadedRig>,
    mesh: &Arc<LoadedMesh>,
    weights: Option<&Arc<LoadedWeights>>,
    described: Option<&LoadedBody>,
    assets: &LoadedAssets,
    worn: &[Arc<crate::inputs::LoadedWearable>],
    skin: Option<&crate::inputs::LoadedMaterial>,
    options: &ConvertOptions,
    data: Option<DataUsed>,
    derived: &Derivations,
    commit: Commit,
) -> Result<(Summary, Option<PendingFile>), ConvertError> {
    let started = Instant::now();
    let format = options.format()?;
    let mesh_name = file_name(&mesh.path);

    if !options.any_topology && mesh.obj.positions.len() != mpfb_body::BASE_MESH_VERTICES {
        return Err(ConvertError::Topology {
            mesh: mesh.path.clone(),
            vertices: mesh.obj.positions.len(),
            expected: mpfb_body::BASE_MESH_VERTICES,
        });
    }
    // G4MF stores f32: a coordinate the scale carries past f32's range is refused here, naming
    // the mesh, not found later as an infinite accessor value.
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
    let body = match described {
        None => Body::from_mesh(mesh, options.frame),
        Some(described) => Body::morphed(mesh, options.frame, described)?,
    };
    crate::timings::lap("body");
    let fit = stages::fit::fit(rig, mesh, &body, options.allow_fallback)?;
    crate::timings::lap("fit");
    let Assembled {
        character,
        mut extras,
        warnings: assembly_warnings,
    } = assemble(
        rig,
        mesh,
        weights,
        &body,
        &fit,
        described,
        &assets.bone_map,
        options,
        &derived.assemble,
    )?;
    crate::timings::lap("assemble");
    let mut warnings: Vec<Warning> = fit
        .warnings
        .iter()
        .map(|w| Warning::new(WarningKind::Fit, w.clone()))
        .collect();
    let mut notes = Vec::new();
    if let Some(described) = described {
        if !described.description.not_converted.is_empty() {
            warnings.push(Warning::new(
                WarningKind::Description,
                format!(
                    "not converted from {}: {}",
                    described
                        .source
                        .as_deref()
                        .map_or_else(|| "the description".to_owned(), file_name),
                    described.description.not_converted.join(", ")
                ),
            ));
        }
    }
    let kept_shapes = described.map_or(&[][..], |d| d.shapes.as_slice());
    let all_shapes: Vec<crate::inputs::LoadedShape> =
        assets.shapes.iter().chain(kept_shapes).cloned().collect();
    let character = stages::shapes::attach(character, &all_shapes, options.frame, &derived.shapes)?;
    crate::timings::lap("blend shapes");
    if !assets.not_worn.is_empty() {
        warnings.push(Warning::new(
            WarningKind::Description,
            format!(
                "not converted (no MakeHuman assets folder: give --assets DIR or run `mpfb2g4mf data fetch --makehuman-assets`): {}",
                assets.not_worn.join(", ")
            ),
        ));
    }
    let mut wear_warnings = Vec::new();
    let (character, hidden) = stages::wear::wear(
        character,
        &mut extras,
        worn,
        options.materials,
        &mut wear_warnings,
        &derived.wear,
    )?;
    warnings.extend(
        wear_warnings
            .into_iter()
            .map(|w| Warning::new(WarningKind::Assets, w)),
    );
    crate::timings::lap("wear");
    // Humanoid names: to rename with, to find the limbs of a computed T-pose, and the bones
    // unweighted face helpers belong to.
    let computed_t_pose = matches!(
        assets.rest_pose,
        Some(crate::inputs::LoadedPose::ComputedTPose)
    );
    let find_names =
        |c: &character::Character| stages::humanoid::names(c, assets.humanoid.as_ref(), &rig.path);
    let names = if assets.humanoid.is_some() || computed_t_pose {
        Some(find_names(&character)?)
    } else {
        None
    };
    let face_parts: Vec<&str> = match options.helpers {
        crate::options::Helpers::None => Vec::new(),
        _ => transforms::FACE_PARTS
            .iter()
            .copied()
            .filter(|p| !hidden.parts.contains(p))
            .collect(),
    };
    let mut bind_warnings = Vec::new();
    let character = stages::bind::bind_unweighted_helpers(
        character,
        &face_parts,
        names.as_ref(),
        find_names,
        &mut bind_warnings,
        &derived.bind,
    )?;
    warnings.extend(
        bind_warnings
            .into_iter()
            .map(|w| Warning::new(WarningKind::Skin, w)),
    );
    let character = match &assets.rest_pose {
        None => character,
        Some(pose) => {
            let (posed, source) =
                stages::rest_pose::posed_frames(&character, pose, &rig.path, names.as_ref())?;
            notes.push(format!("rest pose baked from {source}"));
            stages::rest_pose::bake(character, &posed)?
        }
    };
    let (character, humanoid) = match names.filter(|_| assets.humanoid.is_some()) {
        None => (character, None),
        Some(names) => {
            let (character, humanoid_warnings) =
                stages::humanoid::rename(character, &names.table, &names.source)?;
            warnings.extend(
                humanoid_warnings
                    .into_iter()
                    .map(|w| Warning::new(WarningKind::Humanoid, w)),
            );
            if !names.not_placed.is_empty() {
                notes.push(format!(
                    "humanoid {} ({} bones); not placed: {}",
                    names.source,
                    names.table.len(),
                    names.not_placed.join(", ")
                ));
            }
            (character, Some(names))
        }
    };
    let moved: Vec<bool> = character
        .blend_shapes
        .iter()
        .map(|s| !s.offsets.is_empty())
        .collect();
    let mut helper_warnings = Vec::new();
    let character = transforms::extract_helpers(
        character,
        options.helpers,
        &hidden,
        options.keep_hidden_body,
        &mesh_name,
        &mut helper_warnings,
        &derived.transforms,
    );
    let mut shape_warnings = Vec::new();
    let character = stages::shapes::prune(character, &moved, &mut shape_warnings);
    warnings.extend(
        helper_warnings
            .into_iter()
            .map(|w| Warning::new(WarningKind::Helpers, w)),
    );
    warnings.extend(
        shape_warnings
            .into_iter()
            .map(|w| Warning::new(WarningKind::Shapes, w)),
    );
    let character = transforms::stand(character, options.origin, body.ground_height());
    crate::timings::lap("pose, names, helpers");
    let character = if options.flat {
        character
    } else {
        transforms::smooth_normals(character)
    };
    crate::timings::lap("normals");
    let (character, influence_changes) =
        transforms::limit_influences(character, options.max_influences, options.normalize);
    let character = if options.materials {
        let race = described.map_or_else(
            || mpfb_body::Phenotype::default().race,
            |d| d.description.phenotype.race,
        );
        // Helper eyes get their painted iris unless no images are wanted (then their flat
        // sclera colour stays, as factors are all `--textures none` keeps).
        let helper_iris = (options.textures != crate::options::TextureMode::None)
            .then(|| mesh.helper_iris())
            .flatten();
        stages::dress::dress(
            character,
            race,
            stages::dress::Wardrobe { skin, helper_iris },
            &derived.dress,
        )
    } else {
        character
    };
    crate::timings::lap("influences, materials");
    // What happened, in the order the stages noticed it.
    let height_warning = body.frame.check_height(
        character
            .mesh
            .numbering
            .source
            .iter()
            .map(|&v| DVec3::from_array(mesh.obj.positions[v as usize])),
    );
    let kept_vertices = character.mesh.positions.len();
    let worn_summary: Vec<WornSummary> = extras
        .attachments
        .iter()
        .chain(&extras.mesh.topology)
        .map(|a| WornSummary {
            kind: a.kind.clone(),
            name: a.name.clone(),
            weights: a.weights.clone(),
        })
        .collect();
    let blend_shapes = character.blend_shapes.len();
    let ground_offset = character.skeleton.position.y;
    let written = stages::write::write(character, extras, options, format, commit, &derived.write)?;
    crate::timings::lap("write");
    if let Some(w) = height_warning {
        warnings.push(Warning::new(WarningKind::Scale, w.to_string()));
    }
    warnings.extend(
        assembly_warnings
            .into_iter()
            .map(|w| Warning::new(WarningKind::Skin, w)),
    );
    warnings.extend(
        written
            .texture_warnings
            .iter()
            .map(|w| Warning::new(WarningKind::Textures, w.clone())),
    );
    for (asset, unweighted) in worn_summary.iter().zip(&written.attachment_unweighted) {
        if *unweighted > 0 {
            warnings.push(Warning::new(
                WarningKind::Assets,
                format!(
                    "{unweighted} vertices of {} are moved by no bone",
                    asset.name
                ),
            ));
        }
    }
    if written.unweighted_vertices > 0 {
        warnings.push(Warning::new(
            WarningKind::Skin,
            format!(
                "{} kept vertices are moved by no bone",
                written.unweighted_vertices
            ),
        ));
    }
    // A skeleton beside a mesh no bone moves is rarely what a user wanted: say it.
    if weights.is_none() {
        warnings.push(Warning::new(
            WarningKind::Skin,
            format!(
                "no weights for {}: the mesh is unskinned and no bone moves it (give --weights)",
                file_name(&rig.path)
            ),
        ));
    }
    let layout = match rig.rig.source_layout {
        RigLayout::Bare => "bare",
        RigLayout::V100 => "version 100",
        RigLayout::V110 => "version 110",
    };
    let summary = Summary {
        output: options.output.clone(),
        external: written.external,
        format,
        bytes: written.bytes,
        rig: format!("{} ({layout})", file_name(&rig.path)),
        bones: rig.rig.bones.len(),
        joints: written.joints,
        mesh_vertices: mesh.obj.positions.len(),
        kept_vertices,
        faces: written.faces,
        weights: weights.map(|w| file_name(&w.path)),
        weight_pairs: written.weight_pairs,
        max_influences: written.max_influences,
        unweighted_vertices: written.unweighted_vertices,
        fallbacks: fit.fallbacks,
        notes,
        warnings,
        ground_offset,
        humanoid: humanoid.map(|n| crate::summary::HumanoidSummary {
            source: n.source,
            table: n.table,
            not_placed: n.not_placed,
        }),
        influence_changes: influence_changes.map(|c| InfluenceChanges {
            vertices_changed: c.vertices_changed,
            influences_dropped: c.influences_dropped,
            largest_dropped: c.largest_dropped,
        }),
        blend_shapes,
        worn: worn_summary,
        hidden_body_vertices: if options.keep_hidden_body {
            0
        } else {
            hidden.vertices.iter().filter(|&&h| h).count()
        },
        data,
        millis: started.elapsed().as_secs_f64() * 1e3,
    };
    Ok((summary, written.pending))
}
