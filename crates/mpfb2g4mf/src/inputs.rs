//! Stage 1, load: reading a conversion's input files into memory.
//!
//! Loading is separate from converting so a batch parses each distinct file once and shares
//! it between jobs.

use crate::convert::ConvertError;
use mpfb_mesh::{ObjMesh, VertexGroups, joint_groups, vertex_groups_from_faces};
use mpfb_rig::{FitMesh, ObjFrame, Rig};
use mpfb_weights::WeightsFile;
use std::path::{Path, PathBuf};

/// The default limit on any input file's size (1 GiB): far above real MPFB data (<= 6 MB),
/// low enough that a wrong path or a hostile file fails early and clearly.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 1 << 30;

/// Refuses an input file larger than `limit` bytes, before anything reads it.
pub fn check_input_size(path: &Path, limit: u64) -> Result<(), ConvertError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() > limit => Err(ConvertError::InputTooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit,
        }),
        // Missing files are reported by the reader with its own message.
        _ => Ok(()),
    }
}

/// A parsed rig file.
#[derive(Debug, Clone)]
pub struct LoadedRig {
    /// Where it came from.
    pub path: PathBuf,
    /// The rig.
    pub rig: Rig,
}

impl LoadedRig {
    /// Reads and checks a rig file.
    pub fn load(path: &Path) -> Result<Self, ConvertError> {
        Ok(Self {
            path: path.to_path_buf(),
            rig: mpfb_rig::read_rig_file(path)?,
        })
    }
}

/// A parsed mesh with its vertex groups.
#[derive(Debug, Clone)]
pub struct LoadedMesh {
    /// Where it came from.
    pub path: PathBuf,
    /// The OBJ data, in the file's numbering.
    pub obj: ObjMesh,
    /// Joint-cube groups (from the OBJ's face groups, else from a vertex-group file).
    pub joint_groups: VertexGroups,
    /// Where the joint groups came from.
    pub joint_source: String,
}

impl LoadedMesh {
    /// Reads an OBJ. Joint cubes come from its face groups; when it has none, from
    /// `vertex_groups` (MPFB's `basemesh_vertex_groups.json`), if given.
    pub fn load(path: &Path, vertex_groups: Option<&Path>) -> Result<Self, ConvertError> {
        let obj = mpfb_mesh::read_obj_file(path)?;
        let from_faces = joint_groups(&vertex_groups_from_faces(&obj));
        let (joint_groups, joint_source) = match (from_faces.is_empty(), vertex_groups) {
            (false, _) | (true, None) => (from_faces, "OBJ face groups".to_owned()),
            (true, Some(file)) => (
                joint_groups(&mpfb_mesh::read_vertex_group_file(file)?),
                file.display().to_string(),
            ),
        };
        Ok(Self {
            path: path.to_path_buf(),
            obj,
            joint_groups,
            joint_source,
        })
    }
}

impl LoadedMesh {
    /// The mesh as rigs are fitted to it: every vertex (joint cubes included) in Blender space.
    pub fn fit_mesh(&self, frame: ObjFrame) -> FitMesh {
        FitMesh::from_obj(&self.obj.positions, frame, self.joint_groups.iter())
    }
}

/// A parsed weights file.
#[derive(Debug, Clone)]
pub struct LoadedWeights {
    /// Where it came from.
    pub path: PathBuf,
    /// The weights.
    pub file: WeightsFile,
}

impl LoadedWeights {
    /// Reads a weights file.
    pub fn load(path: &Path) -> Result<Self, ConvertError> {
        Ok(Self {
            path: path.to_path_buf(),
            file: mpfb_weights::read_weights_file(path)?,
        })
    }
}

/// Loads a conversion's inputs, reading the mesh on a second thread while the rig and weights
/// are read on this one: the parses are independent and each takes a third of a convert.
pub fn load_inputs(
    rig: &Path,
    weights: Option<&Path>,
    mesh: &Path,
    vertex_groups: Option<&Path>,
) -> Result<(LoadedRig, LoadedMesh, Option<LoadedWeights>), ConvertError> {
    std::thread::scope(|scope| {
        let mesh_thread = scope.spawn(|| LoadedMesh::load(mesh, vertex_groups));
        let rig = LoadedRig::load(rig);
        let weights = weights.map(LoadedWeights::load).transpose();
        let mesh = mesh_thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        // Report the first input in command-line order that failed.
        Ok((rig?, mesh?, weights?))
    })
}

/// The input files of one conversion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputPaths {
    /// The rig.
    pub rig: PathBuf,
    /// The weights, if any.
    pub weights: Option<PathBuf>,
    /// The body.
    pub mesh: PathBuf,
    /// Vertex groups for meshes without joint face groups.
    pub vertex_groups: Option<PathBuf>,
}

impl InputPaths {
    /// Refuses any file above `max_input_bytes`, then loads them all ([`load_inputs`]).
    pub fn load(
        &self,
        max_input_bytes: u64,
    ) -> Result<(LoadedRig, LoadedMesh, Option<LoadedWeights>), ConvertError> {
        for path in [
            Some(&self.rig),
            Some(&self.mesh),
            self.weights.as_ref(),
            self.vertex_groups.as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            check_input_size(path, max_input_bytes)?;
        }
        load_inputs(
            &self.rig,
            self.weights.as_deref(),
            &self.mesh,
            self.vertex_groups.as_deref(),
        )
    }
}
