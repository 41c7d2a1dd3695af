//! Every finding the reader and the validator can report: one stable code each, with its
//! severity and the part of the specification it enforces. Reports and fixtures spell codes
//! by [`Code::name`]; `spec-notes/validator.md` lists them all.

use serde::{Serialize, Serializer};

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A MUST is broken: the file is invalid.
    Error,
    /// A SHOULD is broken, or something is very likely wrong.
    Warning,
    /// Worth knowing.
    Info,
}

/// Declares [`Code`] from one row per code, `Variant = "NAME", Severity, "spec part";`, in
/// name order, and generates the enum, [`Code::ALL`], [`Code::name`], [`Code::severity`] and
/// [`Code::spec`] from the same rows so they cannot drift apart.
macro_rules! codes {
    ($($(#[$attr:meta])* $variant:ident = $name:literal, $severity:ident, $spec:literal;)*) => {
        /// A finding's stable code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        #[allow(missing_docs)] // Each variant's meaning is its name; spec-notes/validator.md lists them.
        pub enum Code {
            $($(#[$attr])* $variant,)*
        }

        impl Code {
            /// Every code, in name order.
            pub const ALL: [Code; [$(Code::$variant),*].len()] = [$(Code::$variant),*];

            /// The code as written in reports, e.g. `BUFFER_TOO_LARGE`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// The severity every finding of this code has.
            pub const fn severity(self) -> Severity {
                match self {
                    $(Code::$variant => Severity::$severity,)*
                }
            }

            /// The part of the pinned specification (G4MF at 5c8fa5f) the code enforces.
            pub const fn spec(self) -> &'static str {
                match self {
                    $(Code::$variant => $spec,)*
                }
            }
        }
    };
}

// One row per code, in name order (the enum's order, so `Ord` sorts by name too).
codes! {
    AccessorBufferViewInvalid = "ACCESSOR_BUFFER_VIEW_INVALID", Error, "parts/data.md";
    AccessorComponentTypeMissing = "ACCESSOR_COMPONENT_TYPE_MISSING", Error, "parts/data.md";
    AccessorComponentTypeUnknown = "ACCESSOR_COMPONENT_TYPE_UNKNOWN", Warning, "parts/data.md";
    AccessorMisaligned = "ACCESSOR_MISALIGNED", Error, "parts/data.md";
    AccessorPartialElement = "ACCESSOR_PARTIAL_ELEMENT", Error, "parts/data.md";
    AccessorVectorSizeInvalid = "ACCESSOR_VECTOR_SIZE_INVALID", Error, "parts/data.md";
    AssetDimensionMissing = "ASSET_DIMENSION_MISSING", Error, "parts/asset.md";
    AssetDimensionNotInteger = "ASSET_DIMENSION_NOT_INTEGER", Error, "parts/asset.md";
    AssetExtensionNotDeclared = "ASSET_EXTENSION_NOT_DECLARED", Error, "parts/asset.md";
    AssetExtensionRequiredNotUsed = "ASSET_EXTENSION_REQUIRED_NOT_USED", Error, "parts/asset.md";
    AssetMissing = "ASSET_MISSING", Error, "parts/asset.md";
    AssetThumbnailInvalid = "ASSET_THUMBNAIL_INVALID", Error, "parts/asset.md";
    AssetThumbnailNot2d = "ASSET_THUMBNAIL_NOT_2D", Error, "parts/asset.md";
    AssetVersionFormat = "ASSET_VERSION_FORMAT", Error, "parts/asset.md";
    BindingIndexOutOfRange = "BINDING_INDEX_OUT_OF_RANGE", Error, "parts/mesh/bindings.md";
    BindingIndicesNotInteger = "BINDING_INDICES_NOT_INTEGER", Error, "parts/mesh/bindings.md";
    BindingIndicesVectorSize = "BINDING_INDICES_VECTOR_SIZE", Error, "parts/mesh/bindings.md";
    BindingPerSimplexCount = "BINDING_PER_SIMPLEX_COUNT", Error, "parts/mesh/bindings.md";
    BindingPerSimplexInvalid = "BINDING_PER_SIMPLEX_INVALID", Error, "parts/mesh/bindings.md";
    BindingSimplexesCount = "BINDING_SIMPLEXES_COUNT", Error, "parts/mesh/bindings.md";
    BindingSimplexesInvalid = "BINDING_SIMPLEXES_INVALID", Error, "parts/mesh/bindings.md";
    BindingSimplexesWithoutSurfaceSimplexes = "BINDING_SIMPLEXES_WITHOUT_SURFACE_SIMPLEXES", Error, "parts/mesh/bindings.md";
    BindingValuesInvalid = "BINDING_VALUES_INVALID", Error, "parts/mesh/bindings.md";
    BindingValuesMissing = "BINDING_VALUES_MISSING", Error, "parts/mesh/bindings.md";
    BindingValuesNotFloat = "BINDING_VALUES_NOT_FLOAT", Error, "parts/mesh/bindings.md";
    BlendAmountsInvalid = "BLEND_AMOUNTS_INVALID", Error, "parts/mesh/blend.md";
    BlendAmountsLength = "BLEND_AMOUNTS_LENGTH", Error, "parts/mesh/blend.md";
    BlendIndexOutOfRange = "BLEND_INDEX_OUT_OF_RANGE", Error, "parts/mesh/blend.md";
    BlendIndicesNotUnsigned = "BLEND_INDICES_NOT_UNSIGNED", Error, "parts/mesh/blend.md";
    BlendIndicesVectorSize = "BLEND_INDICES_VECTOR_SIZE", Error, "parts/mesh/blend.md";
    BlendOffsetsCount = "BLEND_OFFSETS_COUNT", Error, "parts/mesh/blend.md";
    BlendOffsetsVectorSize = "BLEND_OFFSETS_VECTOR_SIZE", Error, "parts/mesh/blend.md";
    BlendShapesMissing = "BLEND_SHAPES_MISSING", Error, "parts/mesh/blend.md";
    BlendShapeUnnamed = "BLEND_SHAPE_UNNAMED", Warning, "parts/mesh/blend.md";
    BlendSurfacesEmpty = "BLEND_SURFACES_EMPTY", Error, "parts/mesh/blend.md";
    BlendSurfacesTooMany = "BLEND_SURFACES_TOO_MANY", Error, "parts/mesh/blend.md";
    BlendSurfaceDuplicate = "BLEND_SURFACE_DUPLICATE", Error, "parts/mesh/blend.md";
    BlendSurfaceEmpty = "BLEND_SURFACE_EMPTY", Error, "parts/mesh/blend.md";
    BlendSurfaceInvalid = "BLEND_SURFACE_INVALID", Error, "parts/mesh/blend.md";
    BlendTargetInvalid = "BLEND_TARGET_INVALID", Error, "parts/mesh/blend.md";
    BoneLengthNegative = "BONE_LENGTH_NEGATIVE", Error, "parts/mesh/skeleton.md";
    BoneLengthNotNumber = "BONE_LENGTH_NOT_NUMBER", Error, "parts/mesh/skeleton.md";
    BoneMassNegative = "BONE_MASS_NEGATIVE", Error, "parts/mesh/skeleton.md";
    BoneNotInSkeleton = "BONE_NOT_IN_SKELETON", Error, "parts/mesh/skeleton.md";
    BoneShapeInvalid = "BONE_SHAPE_INVALID", Error, "parts/mesh/skeleton.md";
    BoneShapeWithoutLength = "BONE_SHAPE_WITHOUT_LENGTH", Error, "parts/mesh/skeleton.md";
    BufferByteLengthInvalid = "BUFFER_BYTE_LENGTH_INVALID", Error, "parts/data.md";
    BufferChunkAndUri = "BUFFER_CHUNK_AND_URI", Error, "parts/data.md";
    BufferChunkInvalid = "BUFFER_CHUNK_INVALID", Error, "parts/data.md";
    BufferChunkInText = "BUFFER_CHUNK_IN_TEXT", Error, "parts/data.md";
    BufferChunkNotBlob = "BUFFER_CHUNK_NOT_BLOB", Warning, "parts/data.md";
    BufferDataInvalid = "BUFFER_DATA_INVALID", Error, "parts/data.md";
    BufferDataLonger = "BUFFER_DATA_LONGER", Warning, "parts/data.md";
    BufferDataUriInvalid = "BUFFER_DATA_URI_INVALID", Error, "parts/data.md";
    BufferDataUriInBinary = "BUFFER_DATA_URI_IN_BINARY", Warning, "parts/data.md";
    BufferEncodingInvalid = "BUFFER_ENCODING_INVALID", Error, "parts/data.md";
    BufferEncodingMismatch = "BUFFER_ENCODING_MISMATCH", Error, "parts/data.md";
    BufferNoData = "BUFFER_NO_DATA", Error, "parts/data.md";
    BufferTextWithoutUri = "BUFFER_TEXT_WITHOUT_URI", Error, "parts/data.md";
    BufferTooLarge = "BUFFER_TOO_LARGE", Error, "parts/data.md";
    BufferUriInvalid = "BUFFER_URI_INVALID", Error, "parts/data.md";
    BufferUriNotRead = "BUFFER_URI_NOT_READ", Warning, "parts/data.md";
    BufferUriUnreadable = "BUFFER_URI_UNREADABLE", Error, "parts/data.md";
    BufferViewBufferInvalid = "BUFFER_VIEW_BUFFER_INVALID", Error, "parts/data.md";
    BufferViewByteLengthInvalid = "BUFFER_VIEW_BYTE_LENGTH_INVALID", Error, "parts/data.md";
    BufferViewByteOffsetInvalid = "BUFFER_VIEW_BYTE_OFFSET_INVALID", Error, "parts/data.md";
    BufferViewOutOfBounds = "BUFFER_VIEW_OUT_OF_BOUNDS", Error, "parts/data.md";
    BufferZstdNoMagic = "BUFFER_ZSTD_NO_MAGIC", Error, "parts/data.md";
    ChunkDecodeFailed = "CHUNK_DECODE_FAILED", Error, "parts/binary_file_format.md";
    ChunkEncodingReserved = "CHUNK_ENCODING_RESERVED", Error, "parts/binary_file_format.md";
    ChunkHeaderTruncated = "CHUNK_HEADER_TRUNCATED", Error, "parts/binary_file_format.md";
    ChunkJsonPadding = "CHUNK_JSON_PADDING", Warning, "parts/binary_file_format.md";
    ChunkMisaligned = "CHUNK_MISALIGNED", Error, "parts/binary_file_format.md";
    ChunkOutOfBounds = "CHUNK_OUT_OF_BOUNDS", Error, "parts/binary_file_format.md";
    ChunkSizeReservedBit = "CHUNK_SIZE_RESERVED_BIT", Error, "parts/binary_file_format.md";
    ChunkUnknownEncoding = "CHUNK_UNKNOWN_ENCODING", Warning, "parts/binary_file_format.md";
    ChunkUnknownType = "CHUNK_UNKNOWN_TYPE", Info, "parts/binary_file_format.md";
    ChunkZstdNoMagic = "CHUNK_ZSTD_NO_MAGIC", Error, "parts/binary_file_format.md";
    ContainerBadMagic = "CONTAINER_BAD_MAGIC", Error, "parts/binary_file_format.md";
    ContainerBadVersion = "CONTAINER_BAD_VERSION", Error, "parts/binary_file_format.md";
    ContainerNoJsonChunk = "CONTAINER_NO_JSON_CHUNK", Error, "parts/binary_file_format.md";
    ContainerSizeMismatch = "CONTAINER_SIZE_MISMATCH", Error, "parts/binary_file_format.md";
    ContainerSizeReservedBit = "CONTAINER_SIZE_RESERVED_BIT", Error, "parts/binary_file_format.md";
    ContainerTooShort = "CONTAINER_TOO_SHORT", Error, "parts/binary_file_format.md";
    FileBufferViewInvalid = "FILE_BUFFER_VIEW_INVALID", Error, "parts/core.md";
    FileDataBoth = "FILE_DATA_BOTH", Warning, "parts/core.md";
    FileDataMissing = "FILE_DATA_MISSING", Error, "parts/core.md";
    FileImageTooLarge = "FILE_IMAGE_TOO_LARGE", Warning, "parts/texture.md";
    FileImageUndecodable = "FILE_IMAGE_UNDECODABLE", Error, "parts/texture.md";
    FileMimeTypeMismatch = "FILE_MIME_TYPE_MISMATCH", Error, "parts/texture.md";
    FileMimeTypeMissing = "FILE_MIME_TYPE_MISSING", Error, "parts/core.md";
    FileNotPng = "FILE_NOT_PNG", Error, "parts/core.md";
    FileUriNotRead = "FILE_URI_NOT_READ", Warning, "parts/core.md";
    FileUriUnreadable = "FILE_URI_UNREADABLE", Error, "parts/core.md";
    HumanoidAncestry = "HUMANOID_ANCESTRY", Error, "parts/mesh/character_avatar.md";
    HumanoidBones = "HUMANOID_BONES", Info, "parts/mesh/character_avatar.md";
    HumanoidDuplicate = "HUMANOID_DUPLICATE", Error, "parts/mesh/character_avatar.md";
    HumanoidHipsPlacement = "HUMANOID_HIPS_PLACEMENT", Warning, "parts/mesh/character_avatar.md";
    HumanoidNameCase = "HUMANOID_NAME_CASE", Warning, "parts/mesh/character_avatar.md";
    HumanoidVariantOrder = "HUMANOID_VARIANT_ORDER", Error, "parts/mesh/character_avatar.md";
    HumanoidVariantZero = "HUMANOID_VARIANT_ZERO", Error, "parts/mesh/character_avatar.md";
    IoError = "IO_ERROR", Error, "(none: the file cannot be read)";
    JsonBom = "JSON_BOM", Error, "parts/binary_file_format.md";
    JsonControlCharacter = "JSON_CONTROL_CHARACTER", Error, "parts/binary_file_format.md";
    JsonDuplicateKey = "JSON_DUPLICATE_KEY", Warning, "parts/binary_file_format.md";
    JsonNotObject = "JSON_NOT_OBJECT", Error, "parts/binary_file_format.md";
    JsonNotUtf8 = "JSON_NOT_UTF8", Error, "parts/binary_file_format.md";
    JsonSyntax = "JSON_SYNTAX", Error, "parts/binary_file_format.md";
    MaterialChannelNotObject = "MATERIAL_CHANNEL_NOT_OBJECT", Error, "parts/mesh/material.md";
    MaterialChannelTextureInvalid = "MATERIAL_CHANNEL_TEXTURE_INVALID", Error, "parts/mesh/material.md";
    MaterialFactorInvalid = "MATERIAL_FACTOR_INVALID", Error, "parts/mesh/material.md";
    MaterialNotObject = "MATERIAL_NOT_OBJECT", Error, "parts/mesh/material.md";
    MeshInstanceMaterialsLength = "MESH_INSTANCE_MATERIALS_LENGTH", Error, "parts/mesh/node_mesh_instance.md";
    MeshInstanceMaterialInvalid = "MESH_INSTANCE_MATERIAL_INVALID", Error, "parts/mesh/node_mesh_instance.md";
    MeshInstanceMeshInvalid = "MESH_INSTANCE_MESH_INVALID", Error, "parts/mesh/node_mesh_instance.md";
    MeshInstanceMeshMissing = "MESH_INSTANCE_MESH_MISSING", Error, "parts/mesh/node_mesh_instance.md";
    MeshSurfacesEmpty = "MESH_SURFACES_EMPTY", Error, "parts/mesh/mesh.md";
    MeshVerticesInvalid = "MESH_VERTICES_INVALID", Error, "parts/mesh/mesh.md";
    MeshVerticesMissing = "MESH_VERTICES_MISSING", Error, "parts/mesh/mesh.md";
    MeshVerticesNotFloat = "MESH_VERTICES_NOT_FLOAT", Warning, "parts/mesh/mesh.md";
    MeshVerticesVectorSize = "MESH_VERTICES_VECTOR_SIZE", Warning, "parts/mesh/mesh.md";
    NameControlCharacter = "NAME_CONTROL_CHARACTER", Error, "parts/core.md";
    NameDuplicate = "NAME_DUPLICATE", Error, "parts/core.md";
    NameForbiddenCharacter = "NAME_FORBIDDEN_CHARACTER", Error, "parts/core.md";
    NameNotString = "NAME_NOT_STRING", Error, "parts/core.md";
    NodeBasisLength = "NODE_BASIS_LENGTH", Error, "parts/transform.md";
    NodeBasisWithRotorOrScale = "NODE_BASIS_WITH_ROTOR_OR_SCALE", Error, "parts/transform.md";
    NodeChildrenInvalid = "NODE_CHILDREN_INVALID", Error, "parts/node.md";
    NodeChildDuplicate = "NODE_CHILD_DUPLICATE", Error, "parts/node.md";
    NodeChildInvalid = "NODE_CHILD_INVALID", Error, "parts/node.md";
    NodeCycle = "NODE_CYCLE", Error, "parts/node.md";
    NodeMultipleComponents = "NODE_MULTIPLE_COMPONENTS", Error, "parts/node.md";
    NodeMultipleParents = "NODE_MULTIPLE_PARENTS", Error, "parts/node.md";
    NodeNotObject = "NODE_NOT_OBJECT", Error, "parts/node.md";
    NodePositionLength = "NODE_POSITION_LENGTH", Error, "parts/transform.md";
    NodeRootAsChild = "NODE_ROOT_AS_CHILD", Error, "parts/node.md";
    NodeRootTransform = "NODE_ROOT_TRANSFORM", Error, "parts/transform.md";
    NodeRotorLength = "NODE_ROTOR_LENGTH", Error, "parts/transform.md";
    NodeScaleLength = "NODE_SCALE_LENGTH", Error, "parts/transform.md";
    NodeScaleNotPositive = "NODE_SCALE_NOT_POSITIVE", Error, "parts/transform.md";
    NodeTransformNotNumbers = "NODE_TRANSFORM_NOT_NUMBERS", Error, "parts/transform.md";
    NodeUnused = "NODE_UNUSED", Info, "parts/node.md";
    NormalsNotUnit = "NORMALS_NOT_UNIT", Error, "parts/mesh/mesh.md";
    NormalsVectorSize = "NORMALS_VECTOR_SIZE", Error, "parts/mesh/mesh.md";
    SkeletonJointsInvalid = "SKELETON_JOINTS_INVALID", Error, "parts/mesh/skeleton.md";
    SkeletonJointsNotIncreasing = "SKELETON_JOINTS_NOT_INCREASING", Error, "parts/mesh/skeleton.md";
    SkeletonJointInvalid = "SKELETON_JOINT_INVALID", Error, "parts/mesh/skeleton.md";
    SkeletonJointNotBone = "SKELETON_JOINT_NOT_BONE", Error, "parts/mesh/skeleton.md";
    SkeletonJointOutsideSkeleton = "SKELETON_JOINT_OUTSIDE_SKELETON", Error, "parts/mesh/skeleton.md";
    SkeletonJointParentAfterChild = "SKELETON_JOINT_PARENT_AFTER_CHILD", Error, "parts/mesh/skeleton.md";
    SkeletonJointUncontrolled = "SKELETON_JOINT_UNCONTROLLED", Warning, "parts/mesh/skeleton.md";
    SkeletonRootBoneNotFirstChild = "SKELETON_ROOT_BONE_NOT_FIRST_CHILD", Error, "parts/mesh/skeleton.md";
    SkeletonRootBoneNotFirstJoint = "SKELETON_ROOT_BONE_NOT_FIRST_JOINT", Error, "parts/mesh/skeleton.md";
    SkinAccessorInvalid = "SKIN_ACCESSOR_INVALID", Error, "parts/mesh/skeleton.md";
    SkinAccessorMissing = "SKIN_ACCESSOR_MISSING", Error, "parts/mesh/skeleton.md";
    SkinGroupsNotUnsigned = "SKIN_GROUPS_NOT_UNSIGNED", Error, "parts/mesh/skeleton.md";
    SkinGroupBeyondJoints = "SKIN_GROUP_BEYOND_JOINTS", Warning, "parts/mesh/skeleton.md";
    SkinGroupNamesDiffer = "SKIN_GROUP_NAMES_DIFFER", Error, "parts/mesh/skeleton.md";
    SkinGroupNameDuplicate = "SKIN_GROUP_NAME_DUPLICATE", Error, "parts/mesh/skeleton.md";
    SkinGroupNameEmpty = "SKIN_GROUP_NAME_EMPTY", Error, "parts/mesh/skeleton.md";
    SkinGroupNameNotString = "SKIN_GROUP_NAME_NOT_STRING", Error, "parts/mesh/skeleton.md";
    SkinLengthMismatch = "SKIN_LENGTH_MISMATCH", Error, "parts/mesh/skeleton.md";
    SkinMeshNotUnderSkeleton = "SKIN_MESH_NOT_UNDER_SKELETON", Warning, "parts/mesh/skeleton.md";
    SkinVectorSize = "SKIN_VECTOR_SIZE", Error, "parts/mesh/skeleton.md";
    SkinVertexOutOfRange = "SKIN_VERTEX_OUT_OF_RANGE", Error, "parts/mesh/skeleton.md";
    SkinVerticesNotAscending = "SKIN_VERTICES_NOT_ASCENDING", Error, "parts/mesh/skeleton.md";
    SkinVerticesNotUnsigned = "SKIN_VERTICES_NOT_UNSIGNED", Error, "parts/mesh/skeleton.md";
    SkinVerticesUnweighted = "SKIN_VERTICES_UNWEIGHTED", Warning, "parts/mesh/skeleton.md";
    SkinWeightsNotDescending = "SKIN_WEIGHTS_NOT_DESCENDING", Error, "parts/mesh/skeleton.md";
    SkinWeightsNotFloat = "SKIN_WEIGHTS_NOT_FLOAT", Error, "parts/mesh/skeleton.md";
    SkinWeightNegative = "SKIN_WEIGHT_NEGATIVE", Warning, "parts/mesh/skeleton.md";
    SkinWeightNotFinite = "SKIN_WEIGHT_NOT_FINITE", Error, "parts/mesh/skeleton.md";
    SkinWeightSum = "SKIN_WEIGHT_SUM", Warning, "parts/mesh/skeleton.md";
    SurfaceEdgesInvalid = "SURFACE_EDGES_INVALID", Error, "parts/mesh/mesh.md";
    SurfaceEdgesNotInteger = "SURFACE_EDGES_NOT_INTEGER", Error, "parts/mesh/mesh.md";
    SurfaceEdgesVectorSize = "SURFACE_EDGES_VECTOR_SIZE", Error, "parts/mesh/mesh.md";
    SurfaceEdgeIndexOutOfRange = "SURFACE_EDGE_INDEX_OUT_OF_RANGE", Error, "parts/mesh/mesh.md";
    SurfaceGeometryWithoutEdges = "SURFACE_GEOMETRY_WITHOUT_EDGES", Error, "parts/mesh/mesh.md";
    SurfaceMaterialInvalid = "SURFACE_MATERIAL_INVALID", Error, "parts/mesh/mesh.md";
    SurfacePolytopeNotFlat = "SURFACE_POLYTOPE_NOT_FLAT", Error, "parts/mesh/mesh.md";
    SurfacePolytopeWithoutSimplexes = "SURFACE_POLYTOPE_WITHOUT_SIMPLEXES", Error, "parts/mesh/mesh.md";
    SurfaceSeamsWithoutEdges = "SURFACE_SEAMS_WITHOUT_EDGES", Error, "parts/mesh/mesh.md";
    SurfaceSimplexesInvalid = "SURFACE_SIMPLEXES_INVALID", Error, "parts/mesh/mesh.md";
    SurfaceSimplexesNotInteger = "SURFACE_SIMPLEXES_NOT_INTEGER", Error, "parts/mesh/mesh.md";
    SurfaceSimplexesVectorSize = "SURFACE_SIMPLEXES_VECTOR_SIZE", Error, "parts/mesh/mesh.md";
    SurfaceSimplexIndexOutOfRange = "SURFACE_SIMPLEX_INDEX_OUT_OF_RANGE", Error, "parts/mesh/mesh.md";
    TextureFileInvalid = "TEXTURE_FILE_INVALID", Error, "parts/texture.md";
    TextureImageSizeMismatch = "TEXTURE_IMAGE_SIZE_MISMATCH", Error, "parts/texture.md";
    TextureMapNotFinite = "TEXTURE_MAP_NOT_FINITE", Error, "parts/mesh/material.md";
    TextureMapVectorSize = "TEXTURE_MAP_VECTOR_SIZE", Error, "parts/mesh/material.md";
    TexturePlaceholderMissing = "TEXTURE_PLACEHOLDER_MISSING", Error, "parts/texture.md";
    TextureSamplerInvalid = "TEXTURE_SAMPLER_INVALID", Error, "parts/texture.md";
    TextureSizeInvalid = "TEXTURE_SIZE_INVALID", Error, "parts/texture.md";
    TextureWrapInvalid = "TEXTURE_WRAP_INVALID", Error, "parts/texture.md";
}

impl Code {
    /// The code of a name, if it is one.
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_screaming_snake_case_and_round_trip() {
        let mut names = std::collections::HashSet::new();
        for code in Code::ALL {
            let name = code.name();
            assert!(names.insert(name), "{name} twice");
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            );
            assert_eq!(Code::from_name(name), Some(code));
            assert!(code.spec().starts_with("parts/") || code == Code::IoError);
        }
    }

    #[test]
    fn all_is_in_name_order_and_holds_every_variant_once() {
        for pair in Code::ALL.windows(2) {
            let [first, second] = [pair[0], pair[1]];
            assert!(first.name() < second.name(), "{first} before {second}");
            assert!(first < second, "{first} and {second} out of enum order");
        }
        // Discriminants run 0..N in declaration order, so each variant sitting at its own
        // discriminant means every variant is in `ALL`, once.
        for (index, code) in Code::ALL.into_iter().enumerate() {
            assert_eq!(code as usize, index, "{code}");
        }
    }
}
