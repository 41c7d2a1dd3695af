//! A node's transform, read strictly (the character reader) and leniently (pictures, the
//! tests' skinning judge): the same where the node is well formed, each malformed member left
//! out or refused by name.

use g4mf_reader::model::Node;
use g4mf_reader::{Transform, rotor_to_quat};
use glam::{DMat3, DVec3};

fn node(edit: impl FnOnce(&mut Node)) -> Node {
    let mut node = Node::default();
    edit(&mut node);
    node
}

#[test]
fn a_rotor_turns_as_the_spec_notes_say() {
    // [scalar, xy, xz, yz] = cos 45° - sin 45° e_xy turns X toward Y by 90 degrees.
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let q = rotor_to_quat([h, -h, 0.0, 0.0]).unwrap();
    assert!((q * DVec3::X).abs_diff_eq(DVec3::Y, 1e-12));
    // Any length is normalised; - e_xz turns X toward Z. No length: none.
    let q = rotor_to_quat([2.0 * h, 0.0, -2.0 * h, 0.0]).unwrap();
    assert!((q * DVec3::X).abs_diff_eq(DVec3::Z, 1e-12), "{q}");
    assert_eq!(rotor_to_quat([0.0; 4]), None);
    assert_eq!(rotor_to_quat([f64::NAN, 0.0, 0.0, 0.0]), None);
}

#[test]
fn well_formed_nodes_read_alike_strictly_and_leniently() {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let nodes = [
        Node::default(),
        node(|n| n.position = Some(vec![1.0, 2.0, 3.0])),
        node(|n| n.basis = Some(vec![0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 2.0])),
        node(|n| {
            n.rotor = Some(vec![h, -h, 0.0, 0.0]);
            n.scale = Some(vec![1.0, 2.0, 3.0]);
            n.position = Some(vec![0.0, 0.0, 5.0]);
        }),
        node(|n| n.scale = Some(vec![2.0])),
    ];
    for node in &nodes {
        assert_eq!(
            Transform::of_node(node).unwrap(),
            Transform::of_node_lenient(node)
        );
    }
    // Rotor times scale: X scaled by 1 then turned to Y.
    let t = Transform::of_node(&nodes[3]).unwrap();
    assert!(t.basis.x_axis.abs_diff_eq(DVec3::Y, 1e-12));
    assert!(t.basis.y_axis.abs_diff_eq(-2.0 * DVec3::X, 1e-12));
    assert_eq!(
        t.affine().transform_point3(DVec3::ZERO),
        DVec3::new(0.0, 0.0, 5.0)
    );
    // `then` composes: a child's place in its grandparent's space.
    let parent = Transform::of_node(&nodes[1]).unwrap();
    let world = parent.then(t);
    assert_eq!(world.position, DVec3::new(1.0, 2.0, 8.0));
    assert_eq!(Transform::IDENTITY.then(t), t);
}

#[test]
fn a_malformed_member_is_refused_strictly_and_left_out_leniently() {
    let cases = [
        (
            node(|n| n.position = Some(vec![1.0, 2.0])),
            "position",
            "2 numbers, not 3",
        ),
        (
            node(|n| n.basis = Some(vec![1.0; 4])),
            "basis",
            "4 numbers, not 9",
        ),
        (
            node(|n| n.rotor = Some(vec![1.0, 0.0, 0.0])),
            "rotor",
            "3 numbers; a 3D rotor has 4",
        ),
        (
            node(|n| n.rotor = Some(vec![0.0; 4])),
            "rotor",
            "a rotor of no length",
        ),
        (
            node(|n| n.scale = Some(vec![1.0, 1.0])),
            "scale",
            "2 numbers, not 1 or 3",
        ),
        (
            node(|n| n.scale = Some(vec![-1.0, 1.0, 1.0])),
            "scale",
            "a scale must be positive",
        ),
    ];
    for (node, key, message) in &cases {
        let err = Transform::of_node(node).unwrap_err();
        assert_eq!((err.key, err.message.as_str()), (*key, *message));
    }
    // Leniently: no position, no basis (so the rotor and scale), no turn, no scaling; a
    // negative scale mirrors.
    let lenient: Vec<Transform> = cases
        .iter()
        .map(|(n, _, _)| Transform::of_node_lenient(n))
        .collect();
    for t in &lenient[..5] {
        assert_eq!(*t, Transform::IDENTITY);
    }
    assert_eq!(
        lenient[5].basis,
        DMat3::from_diagonal(DVec3::new(-1.0, 1.0, 1.0))
    );
    // A malformed basis falls back to the node's rotor and scale.
    let fallback = node(|n| {
        n.basis = Some(vec![1.0; 4]);
        n.scale = Some(vec![3.0]);
    });
    assert_eq!(
        Transform::of_node_lenient(&fallback).basis,
        DMat3::from_diagonal(DVec3::splat(3.0))
    );
}
