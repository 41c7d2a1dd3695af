//! Fits an MPFB rig to an OBJ body and prints every bone's head, tail and rest basis in G4MF
//! space: `cargo run -p mpfb-rig --example fit -- RIG.json MESH.obj`.

use mpfb_mesh::{read_obj_file, vertex_groups_from_faces};
use mpfb_rig::{FitMesh, ObjFrame, fit, read_rig_file};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rig_path, mesh_path] = args.as_slice() else {
        eprintln!("usage: fit RIG.json MESH.obj");
        return ExitCode::from(2);
    };
    match run(rig_path, mesh_path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

fn run(rig_path: &str, mesh_path: &str) -> Result<(), String> {
    let rig = read_rig_file(rig_path.as_ref()).map_err(|e| e.to_string())?;
    let mesh = read_obj_file(mesh_path.as_ref()).map_err(|e| e.to_string())?;
    let frame = ObjFrame::MAKEHUMAN;
    let groups = vertex_groups_from_faces(&mesh);
    let fit_mesh = FitMesh::from_obj(&mesh.positions, frame, groups.iter());
    let fitted = fit(&rig, &fit_mesh).map_err(|e| e.to_string())?;
    println!("bone\tparent\thead (m)\ttail (m)\tlength (m)\troll (rad)\tX axis\tZ axis");
    for (bone, f) in rig.bones.iter().zip(&fitted.bones) {
        println!(
            "{}\t{}\t{:.5}\t{:.5}\t{:.5}\t{:.5}\t{:.4}\t{:.4}",
            bone.name,
            bone.parent.as_deref().unwrap_or("-"),
            f.head,
            f.tail,
            f.length,
            f.roll,
            f.basis.x_axis,
            f.basis.z_axis
        );
    }
    eprintln!(
        "{} bones, {} fallbacks, {} warnings",
        fitted.bones.len(),
        fitted.fallbacks.len(),
        fitted.warnings.len()
    );
    for fallback in &fitted.fallbacks {
        eprintln!(
            "fallback: {} {} at {}: {}",
            fallback.bone, fallback.end, fallback.pointer, fallback.reason
        );
    }
    for warning in &fitted.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(())
}
