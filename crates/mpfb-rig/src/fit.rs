//! Fitting a rig to a mesh as MPFB does: evaluate each bone end's strategy in Blender space,
//! add scaled offsets, fall back to default positions, then build Blender's rest basis from
//! direction and roll (or roll strategy) and express everything in G4MF space.

use crate::check::bone_pointer;
use crate::error::{RigError, RigErrorKind};
use crate::frame::{roll_from_strategy, vec_roll_to_mat3};
use crate::location::Location;
use crate::model::{BoneEnd, Endpoint, Rig, RollStrategy, Strategy};
use crate::space::{basis_blender_to_g4mf, blender_to_g4mf};
use glam::{DMat3, DVec3};
use std::collections::HashMap;

/// Bones shorter than this (Blender units) are deleted by Blender when leaving edit mode;
/// we refuse them instead, since they have no direction.
pub const MIN_BONE_LENGTH: f64 = 1e-6;

/// The mesh a rig is fitted to: vertex positions in Blender space and joint-cube centres.
#[derive(Debug, Clone)]
pub struct FitMesh {
    vertices: Vec<DVec3>,
    cubes: HashMap<String, DVec3>,
    scale_factor: Option<f64>,
}

impl FitMesh {
    /// A fit mesh from Blender-space vertices and named vertex groups. Only groups whose name
    /// contains `joint` are joint cubes (as in MPFB); a cube's centre is the mean of its
    /// vertices. Group indices beyond the vertex list are ignored.
    pub fn new<'a, N, I>(vertices: Vec<DVec3>, groups: impl IntoIterator<Item = (N, I)>) -> Self
    where
        N: AsRef<str>,
        I: IntoIterator<Item = &'a u32>,
    {
        let mut cubes = HashMap::new();
        for (name, members) in groups {
            let name = name.as_ref();
            if !name.contains("joint") {
                continue;
            }
            let (sum, count) = members
                .into_iter()
                .filter_map(|&i| vertices.get(i as usize))
                .fold((DVec3::ZERO, 0usize), |(s, n), v| (s + *v, n + 1));
            if count > 0 {
                cubes.insert(name.to_owned(), sum / count as f64);
            }
        }
        Self {
            vertices,
            cubes,
            scale_factor: None,
        }
    }

    /// A fit mesh from OBJ positions as written, mapped to Blender space by `frame`.
    ///
    /// `frame` turns the OBJ's unit into metres, so the result is always in MPFB's metre scene
    /// (scale factor [`crate::space::METRE_SCALE_FACTOR`]) whatever the OBJ's unit: offsets,
    /// which are in the rig's units, must not change with the mesh's unit.
    pub fn from_obj<'a, N, I>(
        positions: &[[f64; 3]],
        frame: crate::ObjFrame,
        groups: impl IntoIterator<Item = (N, I)>,
    ) -> Self
    where
        N: AsRef<str>,
        I: IntoIterator<Item = &'a u32>,
    {
        let vertices = positions
            .iter()
            .map(|p| frame.obj_to_blender(DVec3::from_array(*p)))
            .collect();
        Self::new(vertices, groups).with_scale_factor(crate::space::METRE_SCALE_FACTOR)
    }

    /// Sets the MPFB scale factor of the Blender scene the vertices are in (0.1 for metres),
    /// which with the rig's `scale_factor` scales offsets.
    pub fn with_scale_factor(mut self, scale_factor: f64) -> Self {
        self.scale_factor = Some(scale_factor);
        self
    }

    /// Vertex positions in Blender space.
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// The centre of a joint cube, if the mesh has it.
    pub fn cube_centre(&self, name: &str) -> Option<DVec3> {
        self.cubes.get(name).copied()
    }

    /// How many joint cubes the mesh has.
    pub fn cube_count(&self) -> usize {
        self.cubes.len()
    }
}

/// Why a bone end was placed at its `default_position` instead of by its strategy.
#[derive(Debug, Clone, PartialEq)]
pub enum FallbackReason {
    /// The mesh has no joint cube of that name.
    MissingCube {
        /// The cube name.
        cube_name: String,
    },
    /// A vertex index is beyond the mesh.
    VertexOutOfRange {
        /// The index.
        index: u32,
        /// How many vertices the mesh has.
        vertex_count: usize,
    },
    /// A MEAN strategy lists no vertices.
    EmptyMean,
}

impl std::fmt::Display for FallbackReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FallbackReason::MissingCube { cube_name } => {
                write!(f, "the mesh has no joint cube `{cube_name}`")
            }
            FallbackReason::VertexOutOfRange {
                index,
                vertex_count,
            } => write!(
                f,
                "vertex {index} is beyond the mesh's {vertex_count} vertices"
            ),
            FallbackReason::EmptyMean => f.write_str("MEAN lists no vertices"),
        }
    }
}

/// A bone end that fell back to its default position.
#[derive(Debug, Clone, PartialEq)]
pub struct Fallback {
    /// The bone.
    pub bone: String,
    /// Which end.
    pub end: BoneEnd,
    /// Why.
    pub reason: FallbackReason,
    /// JSON pointer to the end in the rig file.
    pub pointer: String,
}

/// Something fitting noticed that does not stop it.
#[derive(Debug, Clone, PartialEq)]
pub enum FitWarning {
    /// The bone is parallel to its roll strategy's reference axis; its stored roll was kept.
    DegenerateRollStrategy {
        /// The bone.
        bone: String,
        /// The strategy's name.
        strategy: &'static str,
    },
}

impl std::fmt::Display for FitWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FitWarning::DegenerateRollStrategy { bone, strategy } => write!(
                f,
                "bone `{bone}` is parallel to the reference axis of {strategy}; kept its stored roll"
            ),
        }
    }
}

/// How a fitted bone end was placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndSource {
    /// By its strategy (plus offset).
    Strategy,
    /// By an explicit `DEFAULT` strategy.
    Default,
    /// By `default_position` after the strategy failed (see [`FittedRig::fallbacks`]).
    Fallback,
}

/// One fitted bone: where it is in Blender and G4MF space, and its rest basis.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedBone {
    /// Head in Blender space.
    pub head_blender: DVec3,
    /// Tail in Blender space.
    pub tail_blender: DVec3,
    /// The roll in effect (the stored roll, or the one a roll strategy computed), radians.
    pub roll: f64,
    /// Head in G4MF space (metres, Y up).
    pub head: DVec3,
    /// Tail in G4MF space.
    pub tail: DVec3,
    /// Rest basis in G4MF space: orthonormal, det +1, columns are local X, Y (head to tail), Z.
    pub basis: DMat3,
    /// Distance from head to tail in metres.
    pub length: f64,
    /// How the head was placed.
    pub head_source: EndSource,
    /// How the tail was placed.
    pub tail_source: EndSource,
}

/// A rig fitted to a mesh. `bones` follows the rig's bone order.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedRig {
    /// Fitted bones, index-aligned with [`Rig::bones`].
    pub bones: Vec<FittedBone>,
    /// Parent index of each bone (`None` for roots).
    pub parents: Vec<Option<usize>>,
    /// Every bone end that fell back to its default position.
    pub fallbacks: Vec<Fallback>,
    /// Non-fatal observations.
    pub warnings: Vec<FitWarning>,
    /// `mesh scene scale factor / rig scale_factor` (1 when either is unknown), applied to
    /// offsets; 1 for a rig saved in the metre scene, whatever the OBJ unit was.
    pub relative_scale: f64,
}

impl FittedRig {
    /// Bone `i`'s rest transform relative to its parent bone (or to the skeleton for roots):
    /// `(position, basis)` in G4MF space.
    pub fn local_transform(&self, i: usize) -> (DVec3, DMat3) {
        let bone = &self.bones[i];
        match self.parents[i] {
            None => (bone.head, bone.basis),
            Some(p) => {
                let parent = &self.bones[p];
                // Parent bases are orthonormal: the inverse is the transpose.
                let inv = parent.basis.transpose();
                (inv * (bone.head - parent.head), inv * bone.basis)
            }
        }
    }
}

/// Fits `rig` to `mesh`. Fails on a bone of (near) zero length, a non-finite position, or an
/// end that cannot be placed and has no default; reports fallbacks and warnings otherwise.
pub fn fit(rig: &Rig, mesh: &FitMesh) -> Result<FittedRig, RigError> {
    let relative_scale = match (mesh.scale_factor, rig.header.scale_factor) {
        (Some(mesh_scale), Some(rig_scale)) if rig_scale != 0.0 => mesh_scale / rig_scale,
        _ => 1.0,
    };
    let mut fallbacks = Vec::new();
    let mut warnings = Vec::new();
    let mut bones = Vec::with_capacity(rig.bones.len());

    for bone in &rig.bones {
        let mut place = |end: BoneEnd, endpoint: &Endpoint| {
            let pointer = bone_pointer(rig, &bone.name, &[end.key()]);
            let error = |kind| RigError::new(Location::pointer(pointer.clone()), kind);
            let (position, source) = match evaluate(endpoint, mesh) {
                Evaluated::Placed(p) => {
                    let offset = endpoint.offset.map_or(DVec3::ZERO, DVec3::from_array);
                    (p + offset * relative_scale, EndSource::Strategy)
                }
                Evaluated::Default => {
                    let p = endpoint.default_position.ok_or_else(|| {
                        error(RigErrorKind::NoPosition {
                            bone: bone.name.clone(),
                            end,
                            reason: "its strategy is DEFAULT".into(),
                        })
                    })?;
                    (DVec3::from_array(p), EndSource::Default)
                }
                Evaluated::Failed(reason) => {
                    let p = endpoint.default_position.ok_or_else(|| {
                        error(RigErrorKind::NoPosition {
                            bone: bone.name.clone(),
                            end,
                            reason: reason.to_string(),
                        })
                    })?;
                    fallbacks.push(Fallback {
                        bone: bone.name.clone(),
                        end,
                        reason,
                        pointer: pointer.clone(),
                    });
                    (DVec3::from_array(p), EndSource::Fallback)
                }
            };
            if !position.is_finite() {
                return Err(error(RigErrorKind::NonFinitePosition {
                    bone: bone.name.clone(),
                    end,
                }));
            }
            Ok((position, source))
        };
        let (head, head_source) = place(BoneEnd::Head, &bone.head)?;
        let (tail, tail_source) = place(BoneEnd::Tail, &bone.tail)?;

        let direction = tail - head;
        let length = direction.length();
        if length <= MIN_BONE_LENGTH {
            return Err(RigError::new(
                Location::pointer(bone_pointer(rig, &bone.name, &[])),
                RigErrorKind::ZeroLengthBone {
                    bone: bone.name.clone(),
                    length,
                },
            ));
        }

        let roll = match &bone.roll_strategy {
            None => bone.roll,
            Some(strategy) => roll_from_strategy(direction, strategy).unwrap_or_else(|| {
                warnings.push(FitWarning::DegenerateRollStrategy {
                    bone: bone.name.clone(),
                    strategy: strategy_name(strategy),
                });
                bone.roll
            }),
        };
        let basis_blender = vec_roll_to_mat3(direction, roll);
        bones.push(FittedBone {
            head_blender: head,
            tail_blender: tail,
            roll,
            head: blender_to_g4mf(head),
            tail: blender_to_g4mf(tail),
            basis: basis_blender_to_g4mf(basis_blender),
            length,
            head_source,
            tail_source,
        });
    }

    Ok(FittedRig {
        bones,
        parents: rig.parent_indices(),
        fallbacks,
        warnings,
        relative_scale,
    })
}

fn strategy_name(strategy: &RollStrategy) -> &'static str {
    strategy.name()
}

enum Evaluated {
    Placed(DVec3),
    Default,
    Failed(FallbackReason),
}

/// One end's strategy on the mesh, before offsets (MPFB's `get_best_location_from_strategy`).
fn evaluate(endpoint: &Endpoint, mesh: &FitMesh) -> Evaluated {
    let vertex = |index: u32| {
        mesh.vertices
            .get(index as usize)
            .copied()
            .ok_or(FallbackReason::VertexOutOfRange {
                index,
                vertex_count: mesh.vertices.len(),
            })
    };
    let result = match &endpoint.strategy {
        Strategy::Default => return Evaluated::Default,
        Strategy::Cube { cube_name } => {
            mesh.cube_centre(cube_name)
                .ok_or_else(|| FallbackReason::MissingCube {
                    cube_name: cube_name.clone(),
                })
        }
        Strategy::Vertex { vertex_index } => vertex(*vertex_index),
        Strategy::Mean { vertex_indices } => {
            if vertex_indices.is_empty() {
                Err(FallbackReason::EmptyMean)
            } else {
                vertex_indices
                    .iter()
                    .try_fold(DVec3::ZERO, |sum, &i| vertex(i).map(|v| sum + v))
                    .map(|sum| sum / vertex_indices.len() as f64)
            }
        }
        Strategy::Xyz { vertex_indices } => {
            let [x, y, z] = *vertex_indices;
            (|| Ok(DVec3::new(vertex(x)?.x, vertex(y)?.y, vertex(z)?.z)))()
        }
    };
    match result {
        Ok(p) => Evaluated::Placed(p),
        Err(reason) => Evaluated::Failed(reason),
    }
}
