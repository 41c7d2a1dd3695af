//! Stage 3, fit: the rig fitted to the body as MPFB fits it, with its fallback policy.

use super::body::Body;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::error::{ConvertError, FallbackRefused};
use crate::inputs::{LoadedMesh, LoadedRig};
use mpfb_rig::FittedRig;

/// A fitted rig and what fitting reported.
#[derive(Debug, Clone)]
pub struct Fit {
    /// The fitted bones.
    pub fitted: FittedRig,
    /// Bone ends placed at their default position, described.
    pub fallbacks: Vec<String>,
}

/// Fits `rig` to `body`. A bone end falling back to its default position is an error unless
/// `allow_fallback` (a fallback usually means the mesh is not the rig's); fitting's warnings
/// and the fallbacks allowed are said at the bone in the rig file.
pub fn fit(
    rig: &LoadedRig,
    mesh: &LoadedMesh,
    body: &Body,
    allow_fallback: bool,
    said: &mut Diagnostics,
) -> Result<Fit, ConvertError> {
    let fitted = mpfb_rig::fit(&rig.rig, &body.fit_mesh).map_err(|e| e.with_file(&rig.path))?;
    if let (false, Some(f)) = (allow_fallback, fitted.fallbacks.first()) {
        return Err(ConvertError::Fallback(Box::new(FallbackRefused {
            location: location::Location::pointer(f.pointer.clone()).in_file(&rig.path),
            mesh: mesh.path.clone(),
            bone: f.bone.clone(),
            end: f.end.to_string(),
            reason: f.reason.to_string(),
        })));
    }
    for warning in &fitted.warnings {
        let mpfb_rig::FitWarning::DegenerateRollStrategy { bone, .. } = warning;
        let pointer = mpfb_rig::check::bone_pointer(&rig.rig, bone, &[]);
        said.push(
            Diagnostic::new(Code::FitRollKept, warning.to_string())
                .at(location::Location::pointer(pointer).in_file(&rig.path)),
        );
    }
    let fallbacks: Vec<String> = fitted
        .fallbacks
        .iter()
        .map(|f| format!("{} {} ({})", f.bone, f.end, f.reason))
        .collect();
    for (f, words) in fitted.fallbacks.iter().zip(&fallbacks) {
        said.push(
            Diagnostic::new(
                Code::FitFallback,
                format!("bone end {words} at its default position (--allow-fallback)"),
            )
            .at(location::Location::pointer(f.pointer.clone()).in_file(&rig.path)),
        );
    }
    Ok(Fit { fallbacks, fitted })
}
