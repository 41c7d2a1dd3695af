//! The pose stage (`--pose`, a description's `pose` line, and each frame of a clip): a BVH
//! frame as MakeHuman applies it (`makehuman_poses::pose`: each joint's world turn from rest,
//! the root's scaled move) given to this character's bones. Each bone takes the world turn of
//! its counterpart joint, turning about its own rest head, carried by its parent
//! (spec-notes/makehuman-motion.md §1.6); a bone without one keeps its parent's turn.
//! Counterparts are found, in this order: by name, when every bone of the rig is a joint of
//! the file (MakeHuman's default skeleton: default, default_no_toes); through the reference
//! bones of the rig's own `.mhskel` (game_engine, cmu_mb: MakeHuman's rule for its
//! alternative skeletons, the deepest reference found taken, so a bone turns as the
//! default bone it stands for does in the world); else by humanoid names (the rig's and the
//! default rig's, or names matched on a foreign file's skeleton), a documented
//! approximation.

use crate::diagnostics::{Code, Diagnostics};
use crate::error::ConvertError;
use crate::poses::LoadedPoses;
use crate::stages::humanoid::JobNames;
use character::{Character, Skeleton};
use glam::{DAffine3, DMat3, DQuat, DVec3};
use makehuman_poses::motion::canonical_name;
use makehuman_poses::pose::rest_heads;
use makehuman_poses::{FramePose, MhSkel};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// MakeHuman's units (decimetres) per metre: poses move the root in the base mesh's units.
const UNITS_PER_METRE: f64 = 10.0;

/// How a rig's bones found their counterparts in a file's joints.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// By name: the rig's bones are the file's joints (MakeHuman's default skeleton).
    Names,
    /// Through the reference bones of the rig's `.mhskel` (its file).
    References(String),
    /// By humanoid names (where the rig's and the file's came from).
    Humanoid(String),
}

/// Each bone's counterpart joint in a file, and how they were found.
#[derive(Debug, Clone, PartialEq)]
pub struct Retarget {
    /// Per bone of the character, its counterpart joint.
    pub counterparts: Vec<Option<usize>>,
    /// Per bone, the turn taking its rest direction to its counterpart's in the file's rest
    /// (identity but for a foreign file's limbs: a T-posed file's arms on an A-posed rig),
    /// applied before the counterpart's world turn.
    pub corrections: Vec<DQuat>,
    /// How.
    pub route: Route,
}

impl Retarget {
    /// The bones that have no counterpart (they keep their parent's turn).
    pub fn without_counterpart<'c>(&self, character: &'c Character) -> Vec<&'c str> {
        character
            .skeleton
            .bones
            .iter()
            .zip(&self.counterparts)
            .filter(|(_, c)| c.is_none())
            .map(|(b, _)| b.name.as_str())
            .collect()
    }

    /// A few words on the route, for notes: `bone by bone`, `through game_engine.mhskel's
    /// reference bones`, `by humanoid names (...)`.
    pub fn describe(&self) -> String {
        match &self.route {
            Route::Names => "bone by bone".to_owned(),
            Route::References(file) => format!("through {file}'s reference bones"),
            Route::Humanoid(source) => format!("by humanoid names ({source})"),
        }
    }
}

/// The depth of each joint of `frame` (roots 0).
fn depths(frame: &FramePose) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(frame.parents.len());
    for parent in &frame.parents {
        let d = parent.and_then(|p| out.get(p)).map_or(0, |d| d + 1);
        out.push(d);
    }
    out
}

/// Finds each bone's counterpart in `frame`: by name, by the rig's `.mhskel` references, or
/// by humanoid names (the job's `rig_names`, and the default rig's for MakeHuman's files or
/// names matched on a foreign file's skeleton, `file_skeleton`).
pub fn retarget(
    character: &Character,
    frame: &FramePose,
    rig_skeleton: Option<&(std::path::PathBuf, std::sync::Arc<MhSkel>)>,
    rig_names: &JobNames<'_>,
    file_skeleton: impl FnOnce() -> Skeleton,
) -> Result<Retarget, ConvertError> {
    let bones = &character.skeleton.bones;
    let by_name: Vec<Option<usize>> = bones.iter().map(|b| frame.joint(&b.name)).collect();
    if !bones.is_empty() && by_name.iter().all(Option::is_some) {
        return Ok(Retarget {
            corrections: vec![DQuat::IDENTITY; by_name.len()],
            counterparts: by_name,
            route: Route::Names,
        });
    }
    if let Some((path, skel)) = rig_skeleton {
        let depth = depths(frame);
        let references: HashMap<&str, &Vec<String>> = skel
            .bones
            .iter()
            .map(|b| (b.name.as_str(), &b.reference))
            .collect();
        let counterparts: Vec<Option<usize>> = bones
            .iter()
            .map(|b| {
                references
                    .get(b.name.as_str())?
                    .iter()
                    .filter_map(|r| frame.joint(r))
                    .max_by_key(|&j| depth[j])
            })
            .collect();
        if counterparts.iter().any(Option::is_some) {
            return Ok(Retarget {
                corrections: vec![DQuat::IDENTITY; counterparts.len()],
                counterparts,
                route: Route::References(crate::stages::assemble::file_name(path)),
            });
        }
    }
    humanoid_route(character, frame, rig_names, file_skeleton)
}

/// Counterparts by humanoid names: the job's for the rig against the default rig's
/// shipped table when the file holds MakeHuman's default joints, else against names matched
/// on the file's own skeleton.
fn humanoid_route(
    character: &Character,
    frame: &FramePose,
    rig_names: &JobNames<'_>,
    file_skeleton: impl FnOnce() -> Skeleton,
) -> Result<Retarget, ConvertError> {
    let rig = rig_names.get(character)?;
    let default = crate::tables::shipped("default")?.map(|(t, _)| t);
    let makehumans = default.as_ref().filter(|table| {
        let found = table.keys().filter(|b| frame.joint(b).is_some()).count();
        found * 2 > table.len()
    });
    // G4MF name -> joint of the file; the file's skeleton when it is foreign.
    let mut foreign = None;
    let (file_names, source): (BTreeMap<String, usize>, String) = match makehumans {
        Some(table) => (
            table
                .iter()
                .filter_map(|(bone, g4mf)| Some((g4mf.clone(), frame.joint(bone)?)))
                .collect(),
            "the default rig's table for the file".to_owned(),
        ),
        None => {
            let skeleton = foreign.insert(file_skeleton());
            let matched = crate::humanoid_match::match_skeleton(skeleton);
            (
                matched
                    .table
                    .iter()
                    .filter_map(|(joint, g4mf)| {
                        let index = skeleton.bones.iter().position(|b| &b.name == joint)?;
                        Some((g4mf.clone(), index))
                    })
                    .collect(),
                "names matched on the file's skeleton".to_owned(),
            )
        }
    };
    let bones = &character.skeleton.bones;
    let counterparts: Vec<Option<usize>> = bones
        .iter()
        .map(|b| file_names.get(rig.table.get(&b.name)?).copied())
        .collect();
    let corrections = limb_corrections(bones, &counterparts, rig, foreign.as_ref());
    Ok(Retarget {
        counterparts,
        corrections,
        route: Route::Humanoid(format!("{} of the rig, {source}", rig.source)),
    })
}

/// Per bone, the turn aiming it as a foreign file's rest aims its counterpart (limbs only:
/// MakeHuman's own files, `file` `None`, share the rig's rest, and trunks are near enough).
fn limb_corrections(
    bones: &[character::Bone],
    counterparts: &[Option<usize>],
    rig: &crate::stages::humanoid::Names,
    file: Option<&Skeleton>,
) -> Vec<DQuat> {
    bones
        .iter()
        .zip(counterparts)
        .map(|(bone, joint)| {
            let limb = rig
                .table
                .get(&bone.name)
                .is_some_and(|g4mf| LIMBS.iter().any(|l| g4mf.ends_with(l)));
            match (file, joint) {
                (Some(file), Some(j)) if limb && file.bones[*j].length > 1e-6 => {
                    DQuat::from_rotation_arc(bone.basis.y_axis, file.bones[*j].basis.y_axis)
                }
                _ => DQuat::IDENTITY,
            }
        })
        .collect()
}

/// The humanoid bones a foreign file's rest aims ([`Retarget::corrections`]).
const LIMBS: [&str; 6] = [
    "UpperArm", "LowerArm", "Hand", "UpperLeg", "LowerLeg", "Foot",
];

/// A file's skeleton as a character skeleton (joints at their rest positions in metres, no
/// rolls), for matching humanoid names on it.
pub fn file_skeleton(bvh: &makehuman_poses::Bvh, z_up: bool) -> Skeleton {
    let heads = rest_heads(bvh, z_up);
    let bones = bvh
        .joints
        .iter()
        .enumerate()
        .map(|(i, joint)| {
            let tail = bvh
                .joints
                .iter()
                .position(|j| j.parent == Some(i))
                .map(|c| heads[c])
                .or_else(|| {
                    let end = joint.end_site?;
                    let end = if z_up {
                        makehuman_poses::motion::point_from_z_up(end)
                    } else {
                        end
                    };
                    Some(heads[i] + end)
                });
            let head = heads[i] / UNITS_PER_METRE;
            let along = tail.map(|t| t / UNITS_PER_METRE - head);
            let length = along.map_or(0.0, DVec3::length);
            let y = along
                .filter(|a| a.length() > 1e-9)
                .map_or(DVec3::Y, DVec3::normalize);
            let x = y.any_orthonormal_vector();
            // A joint named `__X` is a fixed offset above `X` (MakeHuman's old skeletons):
            // a neutral name keeps the matcher from placing a limb on it.
            let name = if joint.name.starts_with("__") {
                format!("offset{i}")
            } else {
                canonical_name(&joint.name)
            };
            character::Bone {
                name,
                parent: joint.parent,
                head,
                basis: DMat3::from_cols(x, y, x.cross(y)),
                length: length.max(1e-6),
            }
        })
        .collect();
    Skeleton {
        position: DVec3::ZERO,
        bones,
    }
}

/// The posed frame of every bone (bone space to skeleton space) under `frame`: each bone's
/// rest basis turned by its counterpart's world turn (its parent's without one), its head
/// carried by its parent's pose, the roots moved by the frame's root translation.
pub fn posed_frames(
    character: &Character,
    frame: &FramePose,
    retarget: &Retarget,
) -> Vec<DAffine3> {
    let bones = &character.skeleton.bones;
    let order = crate::stages::rest_pose::parents_first(character);
    let mut world = vec![DQuat::IDENTITY; bones.len()];
    for &i in &order {
        world[i] = match retarget.counterparts.get(i).copied().flatten() {
            Some(j) => frame.world[j] * retarget.corrections[i],
            None => bones[i]
                .parent
                .and_then(|p| world.get(p))
                .copied()
                .unwrap_or(DQuat::IDENTITY),
        };
    }
    let root_move = frame.root_translation / UNITS_PER_METRE;
    crate::stages::rest_pose::pose_bones(character, |i, relative| {
        let moved = if bones[i].parent.is_none() {
            root_move
        } else {
            DVec3::ZERO
        };
        DAffine3::from_mat3_translation(
            DMat3::from_quat(world[i]) * bones[i].basis,
            relative.translation + moved,
        )
    })
}

/// The body's `upperleg02.L` length in MakeHuman's units (decimetres), MakeHuman's default
/// skeleton fitted to the body whose vertices (G4MF metres, base mesh numbering) are `body`;
/// `None` without the skeleton.
pub fn leg_length(loaded: &LoadedPoses, body: &[DVec3]) -> Result<Option<f64>, ConvertError> {
    let Some((path, skel)) = &loaded.default_skeleton else {
        return Ok(None);
    };
    let body_units: Vec<DVec3> = body.iter().map(|&v| v * UNITS_PER_METRE).collect();
    crate::expressions::located(
        path,
        makehuman_poses::fitted_bone_length(skel, makehuman_poses::pose::COMPARE_BONE, &body_units),
    )
}

/// A pose or clip frame on this character: the posed frames, a note on how (file, frame,
/// route, root move) and warnings (what was guessed or left out).
#[derive(Debug, Clone)]
pub struct Posed {
    /// Each bone's posed frame.
    pub frames: Vec<DAffine3>,
    /// How it was posed, for the summary's note.
    pub note: String,
    /// The counterparts found, for further frames of the same file.
    pub retarget: Retarget,
}

/// Frame `frame` of `bvh` on `character` (with the job's humanoid `rig_names`), with
/// `poses`' skeletons and the body's leg length `leg`; `retarget` reuses counterparts found
/// for an earlier frame of the same file.
pub fn pose_frame(
    character: &Character,
    bvh: &makehuman_poses::Bvh,
    frame: usize,
    poses: &LoadedPoses,
    leg: Option<f64>,
    rig_names: &JobNames<'_>,
) -> Result<(FramePose, Retarget), ConvertError> {
    let pose = makehuman_poses::frame_pose(bvh, frame, leg).ok_or_else(|| {
        ConvertError::BodyPose(format!(
            "frame {} asked, the file has {}",
            frame + 1,
            bvh.frame_count()
        ))
    })?;
    let z_up = pose.z_up.unwrap_or(true);
    let retarget = retarget(
        character,
        &pose,
        poses.rig_skeleton.as_ref(),
        rig_names,
        || file_skeleton(bvh, z_up),
    )?;
    Ok((pose, retarget))
}

/// How the root moved under `pose` (of the pose or clip `name`), for the note; a warning
/// when it stays in place for want of what MakeHuman's rule needs.
fn root_words(pose: &FramePose, name: &str, said: &mut Diagnostics) -> String {
    match &pose.root_rule {
        makehuman_poses::RootTranslation::Scaled { scale } => format!(
            "root moved {:.3} m (its channels times {scale:.4}, the body's leg over the file's)",
            pose.root_translation.length() / UNITS_PER_METRE
        ),
        makehuman_poses::RootTranslation::Dropped(why) => {
            said.say(
                Code::PoseRootInPlace,
                format!("pose {name}: the root stays in place: {why}"),
            );
            "root in place".to_owned()
        }
    }
}

/// Frame `frame` of `motion` on `character`: frames and note; what was guessed or left out
/// is said.
pub fn posed(
    character: &Character,
    motion: &crate::poses::LoadedMotion,
    frame: usize,
    poses: &LoadedPoses,
    (leg, rig_path, rig_names): (Option<f64>, &Path, &JobNames<'_>),
    said: &mut Diagnostics,
) -> Result<Posed, ConvertError> {
    let file = &motion.file;
    let (pose, retarget) = pose_frame(character, &motion.bvh, frame, poses, leg, rig_names)?;
    if retarget.counterparts.iter().all(Option::is_none) {
        return Err(ConvertError::BodyPose(format!(
            "{}: no bone of rig `{}` has a counterpart among its {} joints ({})",
            file.path.display(),
            mpfb_data::rig_name(rig_path),
            pose.joints.len(),
            retarget.describe()
        )));
    }
    if pose.z_up.is_none() {
        said.say_at(Code::PoseAxesGuessed, location::Location::file(&file.path), format!(
            "pose {}: none of MakeHuman's axis joints (upperleg02.L, spine01, ...) is in {}: read as Z-up, as MakeHuman's poses are",
            file.name,
            file.path.display()
        ));
    }
    let root = root_words(&pose, &file.name, said);
    let mut note = format!(
        "pose {} (frame {} of {}) {}; {root}",
        file.name,
        frame + 1,
        crate::stages::assemble::file_name(&file.path),
        retarget.describe(),
    );
    let left = retarget.without_counterpart(character);
    if !left.is_empty() && retarget.route != Route::Names {
        let shown: Vec<&str> = left.iter().copied().take(12).collect();
        note.push_str(&format!(
            "; {} bones without a counterpart turn with their parents: {}{}",
            left.len(),
            shown.join(", "),
            if left.len() > shown.len() {
                ", ..."
            } else {
                ""
            }
        ));
    }
    Ok(Posed {
        frames: posed_frames(character, &pose, &retarget),
        note,
        retarget,
    })
}

/// Bone poses a clip may hold (keys times bones): 2^21 posed frames are 200 MB.
pub const MAX_CLIP_BONE_KEYS: usize = 1 << 21;

/// A clip made from a BVH, with what the summary says of it.
#[derive(Debug, Clone)]
pub struct MadeClip {
    /// The clip.
    pub clip: character::Clip,
    /// How it was made, for the summary's note.
    pub note: String,
}

/// The clip of `motion`'s `frames` on `character` (rig at `rig_path`): its key times from the
/// file's frame time (the first key at 0), each key posed as [`posed`] poses a frame, the
/// counterparts found once; what was guessed or left out is said.
pub fn clip(
    character: &Character,
    motion: &crate::poses::LoadedMotion,
    frames: std::ops::Range<usize>,
    poses: &LoadedPoses,
    at: (Option<f64>, &Path, &JobNames<'_>),
    said: &mut Diagnostics,
) -> Result<MadeClip, ConvertError> {
    let leg = at.0;
    let file = &motion.file;
    let bvh = &motion.bvh;
    let keys = frames.len();
    if keys.saturating_mul(character.skeleton.bones.len().max(1)) > MAX_CLIP_BONE_KEYS {
        return Err(ConvertError::BodyPose(format!(
            "{}: {keys} frames on {} bones is more than a clip holds ({MAX_CLIP_BONE_KEYS} bone keys)",
            file.path.display(),
            character.skeleton.bones.len()
        )));
    }
    if keys > 1 && !(bvh.frame_time.is_finite() && bvh.frame_time > 0.0) {
        return Err(ConvertError::BodyPose(format!(
            "{}: its frame time {} is not a positive number of seconds",
            file.path.display(),
            bvh.frame_time
        )));
    }
    let made = posed(character, motion, frames.start, poses, at, said)?;
    let retarget = &made.retarget;
    let mut clip = character::Clip {
        name: file.name.clone(),
        times: Vec::with_capacity(keys),
        poses: Vec::with_capacity(keys),
    };
    for (k, frame) in frames.enumerate() {
        let pose = makehuman_poses::frame_pose(bvh, frame, leg).ok_or_else(|| {
            ConvertError::BodyPose(format!(
                "{}: frame {} is past its last",
                file.path.display(),
                frame + 1
            ))
        })?;
        clip.times.push(k as f64 * bvh.frame_time);
        clip.poses.push(posed_frames(character, &pose, retarget));
    }
    let note = format!(
        "clip {}: {keys} frame{} of {}, {}",
        file.name,
        if keys == 1 { "" } else { "s" },
        crate::stages::assemble::file_name(&file.path),
        made.note
            .split_once(") ")
            .map_or(made.note.as_str(), |(_, rest)| rest)
    );
    Ok(MadeClip { clip, note })
}
