//! Fuzzes the motion readers of `makehuman-poses` (BVH, `.meta`, `.mhpose`, MPFB expression
//! JSON, `.mhskel`, the pose units' names) and MakeHuman's posing of a BVH's first frame: any
//! text gives a value or a one-line error, never a panic or an allocation beyond the readers'
//! bounds; a BVH that parses has parents before children, its channels counted right, every
//! value finite, rotations that are unit quaternions, and world turns that are too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use makehuman_poses::{
    frame_pose, parse_bvh, parse_meta, parse_mhpose, parse_mhskel, parse_mpfb_expression,
    parse_unit_names,
};

fn one_line<T>(result: Result<T, makehuman_poses::PoseError>) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "{e}");
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(bvh) = one_line(parse_bvh(text)) {
        let mut channels = 0;
        for (i, joint) in bvh.joints.iter().enumerate() {
            assert!(joint.parent.is_none_or(|p| p < i), "parent after child");
            assert_eq!(joint.first_channel, channels);
            channels += joint.channels.len();
            assert!(joint.offset.is_finite());
        }
        assert_eq!(channels, bvh.channel_count);
        assert!(bvh.frame_time > 0.0 && bvh.frame_time.is_finite());
        assert!(bvh.frame_count() >= 1);
        let frame = bvh.frame(0).expect("a frame");
        assert!(frame.iter().all(|v| v.is_finite()));
        for joint in &bvh.joints {
            let q = joint.rotation(frame);
            assert!((q.length() - 1.0).abs() < 1e-9, "{q}");
        }
        // MakeHuman's posing of the first frame: unit world turns, a finite root move.
        let pose = frame_pose(&bvh, 0, Some(3.4)).expect("frame 0 exists");
        assert!(pose.world.iter().all(|q| (q.length() - 1.0).abs() < 1e-6));
        assert!(pose.root_translation.is_finite());
    }
    if let Some(expression) = one_line(parse_mpfb_expression(text)) {
        assert!(expression.face_units.iter().all(|(_, w)| w.is_finite()));
    }
    let _ = one_line(parse_meta(text));
    if let Some(pose) = one_line(parse_mhpose(text)) {
        assert!(pose.unit_poses.iter().all(|(_, w)| w.is_finite()));
    }
    if let Some(skel) = one_line(parse_mhskel(text)) {
        for bone in &skel.bones {
            assert!(skel.joints.contains_key(&bone.head) && skel.joints.contains_key(&bone.tail));
        }
    }
    let _ = one_line(parse_unit_names(text));
});
