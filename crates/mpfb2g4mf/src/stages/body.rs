//! Stage 2, body: the body a rig is fitted to and a character is made of, in Blender space
//! (MPFB's), every vertex of the source mesh included (helpers and joint cubes).
//!
//! The body is the mesh as read ([`Body::from_mesh`]), or MakeHuman's base mesh morphed by the
//! targets of a description ([`Body::morphed`]): every vertex, helpers and joint cubes
//! included, so the rig is fitted to the morphed joint cubes as MPFB fits it.

use crate::error::ConvertError;
use crate::inputs::{LoadedBody, LoadedMesh};
use mpfb_rig::{FitMesh, ObjFrame, UpAxis, space};

/// The body: every vertex in Blender space, with its joint cubes.
#[derive(Debug, Clone)]
pub struct Body {
    /// Vertices (Blender space, metres) and joint-cube centres, as fitting needs them.
    pub fit_mesh: FitMesh,
    /// The OBJ's unit and axes, for checks on the input.
    pub frame: ObjFrame,
    /// Height (G4MF y) the body stands on, when it says so itself: the lowest body vertex of a
    /// morphed body (as MPFB stands it); `None` leaves it to the ground cube or lowest vertex.
    pub ground: Option<f64>,
}

impl Body {
    /// The body of a mesh file, mapped to Blender space by `frame`.
    pub fn from_mesh(mesh: &LoadedMesh, frame: ObjFrame) -> Self {
        Self {
            fit_mesh: mesh.fit_mesh(frame),
            frame,
            ground: None,
        }
    }

    /// The mesh morphed by `body`'s targets: `v = base + sum w_i * delta_i` in the OBJ's own
    /// numbering. Targets are in base.obj's decimetres, so a mesh in other units has them
    /// scaled (`0.1 / frame.scale`); a Z-up mesh is refused.
    pub fn morphed(
        mesh: &LoadedMesh,
        frame: ObjFrame,
        body: &LoadedBody,
    ) -> Result<Self, ConvertError> {
        if frame.up != UpAxis::Y {
            return Err(ConvertError::MorphZUp);
        }
        let unit = ObjFrame::MAKEHUMAN.scale / frame.scale;
        let weighted: Vec<(&str, &mpfb_body::Target, f64)> = body
            .targets
            .iter()
            .map(|(w, t)| (w.name.as_str(), t.as_ref(), w.weight * unit))
            .collect();
        let positions = mpfb_body::morph(&mesh.obj.positions, &weighted)?;
        let fit_mesh = FitMesh::from_obj(&positions, frame, mesh.joint_groups.iter());
        // MPFB stands a morphed body on its lowest body vertex.
        let lowest = mesh
            .topology()
            .body_vertices
            .iter()
            .map(|&v| space::blender_to_g4mf(fit_mesh.vertices()[v as usize]).y)
            .reduce(f64::min);
        Ok(Self {
            fit_mesh,
            frame,
            ground: lowest,
        })
    }

    /// Vertex positions in G4MF space (Y up, metres), in the source numbering.
    pub fn g4mf_positions(&self) -> impl Iterator<Item = glam::DVec3> + '_ {
        self.fit_mesh
            .vertices()
            .iter()
            .map(|&v| space::blender_to_g4mf(v))
    }

    /// Height (G4MF y) the body stands on: its own ground when morphed, else the centre of
    /// the `joint-ground` cube when the mesh has one.
    pub fn ground_height(&self) -> Option<f64> {
        self.ground.or_else(|| {
            self.fit_mesh
                .cube_centre("joint-ground")
                .map(|c| space::blender_to_g4mf(c).y)
        })
    }
}
