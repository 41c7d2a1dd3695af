//! Stage 2, body: the body a rig is fitted to and a character is made of, in Blender space
//! (MPFB's), every vertex of the source mesh included (helpers and joint cubes).
//!
//! Today the body is the mesh as read; bodies built from MakeHuman targets replace
//! [`Body::from_mesh`] with a morph of the base mesh, and nothing downstream changes.

use crate::inputs::LoadedMesh;
use mpfb_rig::{FitMesh, ObjFrame, space};

/// The body: every vertex in Blender space, with its joint cubes.
#[derive(Debug, Clone)]
pub struct Body {
    /// Vertices (Blender space, metres) and joint-cube centres, as fitting needs them.
    pub fit_mesh: FitMesh,
    /// The OBJ's unit and axes, for checks on the input.
    pub frame: ObjFrame,
}

impl Body {
    /// The body of a mesh file, mapped to Blender space by `frame`.
    pub fn from_mesh(mesh: &LoadedMesh, frame: ObjFrame) -> Self {
        Self {
            fit_mesh: mesh.fit_mesh(frame),
            frame,
        }
    }

    /// Vertex positions in G4MF space (Y up, metres), in the source numbering.
    pub fn g4mf_positions(&self) -> impl Iterator<Item = glam::DVec3> + '_ {
        self.fit_mesh
            .vertices()
            .iter()
            .map(|&v| space::blender_to_g4mf(v))
    }

    /// Height (G4MF y) of the `joint-ground` cube's centre, when the body has one.
    pub fn ground_cube_height(&self) -> Option<f64> {
        self.fit_mesh
            .cube_centre("joint-ground")
            .map(|c| space::blender_to_g4mf(c).y)
    }
}
