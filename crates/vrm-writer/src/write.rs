//! A built glTF character made a VRM 1.0 document in place: everything is checked and both
//! extension objects are made first, then the thumbnail is appended to the buffer and the
//! extensions put on the root, so a refused character leaves the document as it was.

use crate::error::VrmError;
use crate::humanoid;
use crate::meta::check_thumbnail;
use crate::model::VrmSpec;
use crate::place::Placement;
use crate::spring::spring_bone;
use crate::vrmc_vrm::vrmc_vrm;
use character_spec::CharacterSpec;
use gltf_writer::json::buffer::{Buffer, View};
use gltf_writer::json::extensions::root::Root as RootExtensions;
use gltf_writer::json::image::MimeType;
use gltf_writer::json::validation::USize64;
use gltf_writer::json::{Image, Index};
use gltf_writer::{BuiltGltf, VIEW_ALIGNMENT};
use serde_json::Value;

/// The `VRMC_vrm` extension's name.
pub const VRMC_VRM: &str = "VRMC_vrm";
/// The `VRMC_springBone` extension's name.
pub const VRMC_SPRING_BONE: &str = "VRMC_springBone";

/// What [`make_vrm`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VrmWritten {
    /// Human bones mapped to nodes.
    pub human_bones: usize,
    /// Expressions, presets and custom.
    pub expressions: usize,
    /// Morph-target binds of all expressions.
    pub morph_target_binds: usize,
    /// The thumbnail's image index, when there is one.
    pub thumbnail_image: Option<u32>,
    /// Springs (`VRMC_springBone`; 0: the extension was not written or has none).
    pub springs: usize,
    /// Joints of all springs.
    pub spring_joints: usize,
    /// Colliders.
    pub colliders: usize,
}

/// Makes `built`, the glTF document `gltf_writer::build_gltf` made of `spec`, a VRM 1.0
/// document described by `vrm`: `VRMC_vrm` (and `VRMC_springBone` when `vrm.spring_bones` is
/// not empty) on the root and in `extensionsUsed` (never `extensionsRequired`: a plain glTF
/// reader still shows the character), the thumbnail as an image in the buffer. Write it with
/// `gltf_writer::glb_parts` as a `.vrm`.
///
/// Refuses, leaving `built` untouched: a humanoid map VRM does not accept, meta without
/// authors, names of meshes, shapes or bones the character does not have, springs that are
/// not chains, numbers that are not finite or outside their ranges (`VrmError` says which).
pub fn make_vrm(
    built: &mut BuiltGltf,
    spec: &CharacterSpec,
    vrm: &VrmSpec,
) -> Result<VrmWritten, VrmError> {
    humanoid::check(&spec.bones, &vrm.humanoid)?;
    let place = Placement::of(built, spec)?;
    let has_vrm = built
        .root
        .extensions
        .as_ref()
        .is_some_and(|e| e.others.contains_key(VRMC_VRM));
    if has_vrm || built.root.extensions_used.iter().any(|e| e == VRMC_VRM) {
        return Err(VrmError::AlreadyVrm);
    }
    let thumbnail = match &vrm.meta.thumbnail_png {
        Some(png) => {
            check_thumbnail(png)?;
            let image = u32::try_from(built.root.images.len())
                .map_err(|_| VrmError::TooLarge("the number of images".into()))?;
            Some((png, image))
        }
        None => None,
    };
    let (vrm_object, counts) = vrmc_vrm(&place, vrm, thumbnail.map(|(_, i)| i))?;
    let springs = if vrm.spring_bones.is_empty() {
        None
    } else {
        Some(spring_bone(&place, &vrm.spring_bones)?)
    };
    if let Some((png, _)) = thumbnail {
        push_png(built, png)?;
    }
    let mut written = VrmWritten {
        human_bones: counts.human_bones,
        expressions: counts.expressions,
        morph_target_binds: counts.morph_target_binds,
        thumbnail_image: thumbnail.map(|(_, i)| i),
        ..VrmWritten::default()
    };
    put_extension(built, VRMC_VRM, vrm_object);
    if let Some((object, counts)) = springs {
        put_extension(built, VRMC_SPRING_BONE, object);
        written.springs = counts.springs;
        written.spring_joints = counts.joints;
        written.colliders = counts.colliders;
    }
    Ok(written)
}

/// Puts extension `name` on the root and in `extensionsUsed` (once).
pub(crate) fn put_extension(built: &mut BuiltGltf, name: &str, object: Value) {
    built
        .root
        .extensions
        .get_or_insert_with(RootExtensions::default)
        .others
        .insert(name.into(), object);
    if !built.root.extensions_used.iter().any(|e| e == name) {
        built.root.extensions_used.push(name.into());
    }
}

/// Appends `png` to buffer 0 as a view (aligned as `gltf-writer` aligns its views) and an
/// image of it, and sets the buffer's length (declaring the buffer when the document had none).
fn push_png(built: &mut BuiltGltf, png: &[u8]) -> Result<(), VrmError> {
    let too_large = |what: &str| VrmError::TooLarge(what.into());
    let view = u32::try_from(built.root.buffer_views.len())
        .map_err(|_| too_large("the number of buffer views"))?;
    let padding = built.buffer.len().next_multiple_of(VIEW_ALIGNMENT) - built.buffer.len();
    let offset = built.buffer.len() + padding;
    let length = offset
        .checked_add(png.len())
        .filter(|&l| u32::try_from(l).is_ok())
        .ok_or_else(|| too_large("a buffer of 4 GiB"))?;
    built.buffer.reserve(padding + png.len());
    built.buffer.resize(offset, 0);
    built.buffer.extend_from_slice(png);
    built.root.buffer_views.push(View {
        buffer: Index::new(0),
        byte_length: USize64(png.len() as u64),
        byte_offset: (offset > 0).then_some(USize64(offset as u64)),
        byte_stride: None,
        name: None,
        target: None,
        extensions: None,
        extras: Default::default(),
    });
    built.root.images.push(Image {
        buffer_view: Some(Index::new(view)),
        mime_type: Some(MimeType("image/png".into())),
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    match built.root.buffers.first_mut() {
        Some(buffer) => buffer.byte_length = USize64(length as u64),
        None => built.root.buffers.push(Buffer {
            byte_length: USize64(length as u64),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        }),
    }
    Ok(())
}
