//! OBJ reading: every index form, numbering kept, groups, extraction, and located errors.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use mpfb_mesh::{
    Corner, Extraction, MeshErrorKind, ObjLimits, joint_groups, parse_obj, parse_obj_with_limits,
    parse_vertex_groups, read_obj_file, read_vertex_group_file, vertex_groups_from_faces,
};

fn corner(vertex: u32, texcoord: Option<u32>, normal: Option<u32>) -> Corner {
    Corner {
        vertex,
        texcoord,
        normal,
    }
}

#[test]
fn every_index_form_and_negative_indices() {
    let obj = b"# comment\r\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0 1.0\nvt 0 0\nvt 1 0\nvt 1 1 0\nvn 0 0 1\n\
f 1 2 3\nf 1/1 2/2 3/3\nf 1//1 2//1 3//1\nf 1/1/1 2/2/1 3/3/1\nf -4/-3/-1 -3/-2/-1 -2/-1/-1 -1/-1/-1\n";
    let mesh = parse_obj(obj).unwrap();
    assert_eq!(mesh.positions.len(), 4);
    assert_eq!(
        mesh.positions[3],
        [0.0, 1.0, 0.0],
        "a w component is ignored"
    );
    assert_eq!(mesh.texcoords.len(), 3);
    assert_eq!(mesh.normals.len(), 1);
    assert_eq!(mesh.face_count(), 5);
    assert_eq!(
        mesh.face(0),
        [
            corner(0, None, None),
            corner(1, None, None),
            corner(2, None, None)
        ]
    );
    assert_eq!(mesh.face(1)[2], corner(2, Some(2), None));
    assert_eq!(mesh.face(2)[1], corner(1, None, Some(0)));
    assert_eq!(mesh.face(3)[0], corner(0, Some(0), Some(0)));
    // Negative indices count back from the latest element: -4 is the first of four.
    assert_eq!(
        mesh.face(4),
        [
            corner(0, Some(0), Some(0)),
            corner(1, Some(1), Some(0)),
            corner(2, Some(2), Some(0)),
            corner(3, Some(2), Some(0))
        ]
    );
    assert!(!mesh.all_corners_have_texcoords());
}

#[test]
fn ngons_groups_materials_and_objects() {
    let obj = b"v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 1 0\no Body\ng body skin\nusemtl Skin\ns 1\nf 1 2 3 4 5\n\
g joint-a\nusemtl Cube\nf 1 2 3\nmtllib x.mtl\nl 1 2\n";
    let mesh = parse_obj(obj).unwrap();
    assert_eq!(mesh.face(0).len(), 5);
    assert_eq!(mesh.face_groups(0), ["body", "skin"]);
    assert_eq!(mesh.face_groups(1), ["joint-a"]);
    assert_eq!(mesh.materials, ["Skin", "Cube"]);
    assert_eq!(mesh.face_material, [Some(0), Some(1)]);
    assert_eq!(mesh.objects, ["Body"]);
    assert_eq!(mesh.group_names(), ["body", "skin", "joint-a"]);
    assert_eq!(
        mesh.ignored_statements,
        [("mtllib".to_owned(), 1), ("l".to_owned(), 1)]
    );
    let groups = vertex_groups_from_faces(&mesh);
    assert_eq!(groups["skin"], [0, 1, 2, 3, 4]);
    assert_eq!(
        joint_groups(&groups).keys().collect::<Vec<_>>(),
        ["joint-a"]
    );
}

#[test]
fn vertex_numbering_survives_out_of_order_use() {
    // Faces use vertices 5, 3, 1 first: a first-use renumbering loader would make them 0, 1, 2.
    let obj = b"v 0 0 0\nv 1 0 0\nv 2 0 0\nv 3 0 0\nv 4 0 0\nv 5 0 0\ng body\nf 6 4 2\nf 1 3 5\n";
    let mesh = parse_obj(obj).unwrap();
    assert_eq!(
        mesh.face(0).iter().map(|c| c.vertex).collect::<Vec<_>>(),
        [5, 3, 1]
    );
    assert_eq!(mesh.positions[5], [5.0, 0.0, 0.0]);
    let body = Extraction::group(&mesh, "body");
    assert_eq!(body.vertices, [0, 1, 2, 3, 4, 5], "kept in file order");
    assert!(body.is_identity());
}

#[test]
fn extraction_keeps_original_order_and_maps_indices() {
    let obj = b"v 0 0 0\nv 1 0 0\nv 2 0 0\nv 3 0 0\nv 4 0 0\ng helper\nf 1 2 5\ng body\nf 4 2 3\n";
    let mesh = parse_obj(obj).unwrap();
    let body = Extraction::group(&mesh, "body");
    assert_eq!(body.faces, [1]);
    assert_eq!(body.vertices, [1, 2, 3]);
    assert_eq!(body.new_index, [None, Some(0), Some(1), Some(2), None]);
    assert!(!body.is_identity());
    let all = Extraction::everything(&mesh);
    assert_eq!(all.faces, [0, 1]);
    assert!(all.is_identity());
}

#[test]
fn malformed_lines_are_located() {
    let cases: &[(&[u8], &str, &str)] = &[
        (b"v 0 0\n", "1:1", "`v` needs at least 3 values, found 2"),
        (b"v 0 x 0\n", "1:5", "`x` is not a number"),
        (b"v 0 nan 0\n", "1:5", "`nan` is not a finite number"),
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n",
            "4:7",
            "vertex index 4 is out of range (the file has 3 so far)",
        ),
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n",
            "4:7",
            "vertex index 0 is out of range",
        ),
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 1 2\n",
            "4:3",
            "vertex index -4 is out of range",
        ),
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2 3\n",
            "4:3",
            "texture coordinate index 1 is out of range",
        ),
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n",
            "4:1",
            "`f` needs at least 3 values, found 2",
        ),
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/ 2 3\n",
            "4:3",
            "`1/` is not a face corner",
        ),
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1/1 2 3\n",
            "4:3",
            "is not a face corner",
        ),
        (
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf a 2 3\n",
            "4:3",
            "`a` is not a number (expected an integer index)",
        ),
        (b"v 0 0 0\n\xff\n", "2:1", "not valid UTF-8"),
    ];
    for (text, position, message) in cases {
        let err = parse_obj(text).unwrap_err();
        assert_eq!(
            err.location.to_string(),
            *position,
            "{}: {err}",
            String::from_utf8_lossy(text)
        );
        assert!(
            err.to_string().contains(message),
            "{}: {err}",
            String::from_utf8_lossy(text)
        );
    }
}

#[test]
fn limits_are_enforced() {
    let limits = ObjLimits {
        max_bytes: 8,
        max_face_corners: 16,
    };
    let err = parse_obj_with_limits(b"v 0 0 0\nv 1 0 0\n", limits).unwrap_err();
    assert!(matches!(err.kind, MeshErrorKind::Limit { .. }), "{err}");
    let limits = ObjLimits {
        max_bytes: 1 << 20,
        max_face_corners: 3,
    };
    let err = parse_obj_with_limits(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 1\n", limits).unwrap_err();
    assert!(matches!(err.kind, MeshErrorKind::Limit { .. }), "{err}");
}

#[test]
fn vertex_group_files_expand_inclusive_ranges() {
    let groups = parse_vertex_groups(r#"{"a": [[0, 2], [5, 5]], "joint-x": [[7, 8]]}"#).unwrap();
    assert_eq!(groups["a"], [0, 1, 2, 5]);
    assert_eq!(groups["joint-x"], [7, 8]);
    assert!(parse_vertex_groups(r#"{"a": [[3, 2]]}"#).is_err());
    assert!(parse_vertex_groups(r#"{"a": [[1]]}"#).is_err());
}

#[test]
fn base_obj_reads_with_its_groups() {
    let data = test_support::mpfb_data_or_skip!(base_obj_reads_with_its_groups);
    let mesh = read_obj_file(&data.join("3dobjs/base.obj")).unwrap();
    assert_eq!(mesh.positions.len(), 19158);
    assert_eq!(mesh.texcoords.len(), 21334);
    assert_eq!(mesh.face_count(), 18486);
    assert!(
        (0..mesh.face_count()).all(|f| mesh.face(f).len() == 4),
        "all quads"
    );
    assert!(mesh.all_corners_have_texcoords());

    let from_faces = vertex_groups_from_faces(&mesh);
    let joints = joint_groups(&from_faces);
    assert_eq!(joints.len(), 125);
    assert!(
        joints.values().all(|v| v.len() == 8),
        "each joint cube has 8 vertices"
    );

    // MPFB's own vertex-group file agrees with the OBJ's face groups on every joint cube.
    let from_file =
        read_vertex_group_file(&data.join("mesh_metadata/basemesh_vertex_groups.json")).unwrap();
    let file_joints = joint_groups(&from_file);
    assert_eq!(
        file_joints.len(),
        125,
        "JointCubes has no lowercase `joint`: not a cube"
    );
    for (name, members) in &joints {
        assert_eq!(&file_joints[name], members, "{name}");
    }

    let body = Extraction::group(&mesh, "body");
    assert_eq!(
        body.vertices,
        (0..13380).collect::<Vec<u32>>(),
        "the body is vertices 0..=13379"
    );
    assert_eq!(body.faces.len(), 13378);
    assert_eq!(from_file["body"], body.vertices);
}
