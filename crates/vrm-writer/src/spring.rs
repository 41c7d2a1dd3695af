//! The `VRMC_springBone` extension object (`VRMC_springBone-1.0/README.md`): colliders with
//! their shapes carried from skeleton space into their bone node's frame, collider groups, and
//! springs whose joints are checked to be a chain down the skeleton, no bone in two springs.

use crate::error::{VrmError, finite3, not_negative, within};
use crate::model::{Collider, ColliderShape, Spring, SpringBones, SpringJoint};
use crate::place::Placement;
use serde_json::{Map, Value, json};

/// How far from 1 a gravity direction's length may be (float rounding of a unit vector).
const UNIT_TOLERANCE: f64 = 1e-6;

/// What the `VRMC_springBone` object counts, for [`VrmWritten`](crate::VrmWritten).
#[derive(Debug, Default)]
pub(crate) struct SpringCounts {
    pub springs: usize,
    pub joints: usize,
    pub colliders: usize,
}

/// The `VRMC_springBone` object of `springs` (not empty).
pub(crate) fn spring_bone(
    place: &Placement<'_>,
    springs: &SpringBones,
) -> Result<(Value, SpringCounts), VrmError> {
    let mut object = Map::new();
    object.insert("specVersion".into(), json!("1.0"));
    let colliders = springs
        .colliders
        .iter()
        .enumerate()
        .map(|(i, c)| collider(place, i, c))
        .collect::<Result<Vec<_>, _>>()?;
    let groups = springs
        .collider_groups
        .iter()
        .map(|group| {
            if group.colliders.is_empty() {
                return Err(VrmError::EmptyColliderGroup(group.name.clone()));
            }
            check_indices(
                &group.colliders,
                springs.colliders.len(),
                || format!("collider group `{}`", group.name),
                "collider",
            )?;
            Ok(json!({ "name": group.name, "colliders": group.colliders }))
        })
        .collect::<Result<Vec<_>, _>>()?;
    check_exclusive_joints(place, &springs.springs)?;
    let chains = springs
        .springs
        .iter()
        .map(|s| spring(place, s, springs.collider_groups.len()))
        .collect::<Result<Vec<_>, _>>()?;
    let counts = SpringCounts {
        springs: chains.len(),
        joints: springs.springs.iter().map(|s| s.joints.len()).sum(),
        colliders: colliders.len(),
    };
    // The schema wants at least one item in each list that is there.
    for (key, list) in [
        ("colliders", colliders),
        ("colliderGroups", groups),
        ("springs", chains),
    ] {
        if !list.is_empty() {
            object.insert(key.into(), Value::Array(list));
        }
    }
    Ok((Value::Object(object), counts))
}

/// Every index below `count`.
fn check_indices(
    indices: &[usize],
    count: usize,
    what: impl Fn() -> String,
    kind: &'static str,
) -> Result<(), VrmError> {
    match indices.iter().find(|&&i| i >= count) {
        Some(&index) => Err(VrmError::UnknownIndex {
            what: what(),
            kind,
            index,
        }),
        None => Ok(()),
    }
}

/// Collider `i`: its bone's node and its shape in that node's frame (`offset` and `tail` are
/// node-local in the specification and in three-vrm, which adds them through the node's world
/// matrix).
fn collider(place: &Placement<'_>, i: usize, collider: &Collider) -> Result<Value, VrmError> {
    let what = || format!("collider {i}");
    let node = place.bone_node(collider.bone, what)?;
    let local = |point| {
        finite3(what, point)?;
        finite3(what, place.local_point(collider.bone, point))
    };
    let radius = |r| not_negative(|| format!("collider {i}'s radius"), r);
    let shape = match collider.shape {
        ColliderShape::Sphere { center, radius: r } => json!({
            "sphere": { "offset": local(center)?, "radius": radius(r)? }
        }),
        ColliderShape::Capsule {
            center,
            tail,
            radius: r,
        } => json!({
            "capsule": { "offset": local(center)?, "radius": radius(r)?, "tail": local(tail)? }
        }),
    };
    Ok(json!({ "node": node, "shape": shape }))
}

/// No bone is a joint twice, in one spring or in two (`VRMC_springBone`: "Individual
/// SpringChains must not contain the same joint").
fn check_exclusive_joints(place: &Placement<'_>, springs: &[Spring]) -> Result<(), VrmError> {
    let mut owner: Vec<Option<usize>> = vec![None; place.bone_count()];
    for (s, spring) in springs.iter().enumerate() {
        for (j, joint) in spring.joints.iter().enumerate() {
            place.bone_node(joint.bone, || {
                format!("spring `{}`'s joint {j}", spring.name)
            })?;
            if let Some(first) = owner[joint.bone].replace(s) {
                return Err(VrmError::SharedJoint {
                    bone: place.bone_name(joint.bone).to_owned(),
                    first: springs[first].name.clone(),
                    second: spring.name.clone(),
                });
            }
        }
    }
    Ok(())
}

/// One spring: its joints (each descending from the one before: the specification lets a
/// joint skip bones between, which then do not swing), its collider groups.
fn spring(place: &Placement<'_>, spring: &Spring, groups: usize) -> Result<Value, VrmError> {
    if spring.joints.is_empty() {
        return Err(VrmError::EmptySpring(spring.name.clone()));
    }
    for (j, pair) in spring.joints.windows(2).enumerate() {
        if !descends(place, pair[1].bone, pair[0].bone) {
            return Err(VrmError::BrokenChain {
                spring: spring.name.clone(),
                joint: j + 1,
                bone: place.bone_name(pair[1].bone).to_owned(),
                previous: place.bone_name(pair[0].bone).to_owned(),
            });
        }
    }
    check_indices(
        &spring.collider_groups,
        groups,
        || format!("spring `{}`", spring.name),
        "collider group",
    )?;
    let joints = spring
        .joints
        .iter()
        .enumerate()
        .map(|(j, joint)| joint_json(place, &spring.name, j, joint))
        .collect::<Result<Vec<_>, _>>()?;
    let mut object = Map::new();
    object.insert("name".into(), json!(spring.name));
    object.insert("joints".into(), Value::Array(joints));
    if !spring.collider_groups.is_empty() {
        object.insert("colliderGroups".into(), json!(spring.collider_groups));
    }
    Ok(Value::Object(object))
}

/// Whether `bone` is a proper descendant of `ancestor` (bounded: a cycle ends the walk).
fn descends(place: &Placement<'_>, bone: usize, ancestor: usize) -> bool {
    let mut at = place.parent(bone);
    for _ in 0..place.bone_count() {
        match at {
            Some(p) if p == ancestor => return true,
            Some(p) if p < place.bone_count() => at = place.parent(p),
            _ => return false,
        }
    }
    false
}

/// One joint: its node and parameters in the schema's ranges; `gravityDir` is world space
/// (three-vrm adds it to the world-space tail), which is skeleton space turned by nothing: the
/// skeleton node and the scene add only a translation.
fn joint_json(
    place: &Placement<'_>,
    spring: &str,
    j: usize,
    joint: &SpringJoint,
) -> Result<Value, VrmError> {
    let what = |field: &str| format!("spring `{spring}`'s joint {j} {field}");
    let node = place.bone_node(joint.bone, || what("bone"))?;
    let gravity_dir = finite3(|| what("gravityDir"), joint.gravity_dir)?;
    if (joint.gravity_dir.length() - 1.0).abs() > UNIT_TOLERANCE {
        return Err(VrmError::NotUnit {
            what: what("gravityDir"),
            value: gravity_dir,
        });
    }
    Ok(json!({
        "node": node,
        "hitRadius": not_negative(|| what("hitRadius"), joint.hit_radius)?,
        "stiffness": not_negative(|| what("stiffness"), joint.stiffness)?,
        "gravityPower": not_negative(|| what("gravityPower"), joint.gravity_power)?,
        "gravityDir": gravity_dir,
        "dragForce": within(|| what("dragForce"), joint.drag_force, 0.0, 1.0, "0..=1")?,
    }))
}
