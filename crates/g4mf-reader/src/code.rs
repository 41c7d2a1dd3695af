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

/// A finding's stable code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
#[allow(missing_docs)] // Each variant's meaning is its name; spec-notes/validator.md lists them.
pub enum Code {
    AccessorBufferViewInvalid,
    AccessorComponentTypeMissing,
    AccessorComponentTypeUnknown,
    AccessorMisaligned,
    AccessorPartialElement,
    AccessorVectorSizeInvalid,
    AssetDimensionMissing,
    AssetDimensionNotInteger,
    AssetExtensionNotDeclared,
    AssetExtensionRequiredNotUsed,
    AssetMissing,
    AssetThumbnailInvalid,
    AssetThumbnailNot2d,
    AssetVersionFormat,
    BindingIndexOutOfRange,
    BindingIndicesNotInteger,
    BindingIndicesVectorSize,
    BindingPerSimplexCount,
    BindingPerSimplexInvalid,
    BindingSimplexesCount,
    BindingSimplexesInvalid,
    BindingSimplexesWithoutSurfaceSimplexes,
    BindingValuesInvalid,
    BindingValuesMissing,
    BindingValuesNotFloat,
    BlendAmountsInvalid,
    BlendAmountsLength,
    BlendIndexOutOfRange,
    BlendIndicesNotUnsigned,
    BlendIndicesVectorSize,
    BlendOffsetsCount,
    BlendOffsetsVectorSize,
    BlendShapesMissing,
    BlendShapeUnnamed,
    BlendSurfacesEmpty,
    BlendSurfacesTooMany,
    BlendSurfaceDuplicate,
    BlendSurfaceEmpty,
    BlendSurfaceInvalid,
    BlendTargetInvalid,
    BoneLengthNegative,
    BoneLengthNotNumber,
    BoneMassNegative,
    BoneNotInSkeleton,
    BoneShapeInvalid,
    BoneShapeWithoutLength,
    BufferByteLengthInvalid,
    BufferChunkAndUri,
    BufferChunkInvalid,
    BufferChunkInText,
    BufferChunkNotBlob,
    BufferDataInvalid,
    BufferDataLonger,
    BufferDataUriInvalid,
    BufferDataUriInBinary,
    BufferEncodingInvalid,
    BufferEncodingMismatch,
    BufferNoData,
    BufferTextWithoutUri,
    BufferTooLarge,
    BufferUriInvalid,
    BufferUriNotRead,
    BufferUriUnreadable,
    BufferViewBufferInvalid,
    BufferViewByteLengthInvalid,
    BufferViewByteOffsetInvalid,
    BufferViewOutOfBounds,
    BufferZstdNoMagic,
    ChunkDecodeFailed,
    ChunkEncodingReserved,
    ChunkHeaderTruncated,
    ChunkJsonPadding,
    ChunkMisaligned,
    ChunkOutOfBounds,
    ChunkSizeReservedBit,
    ChunkUnknownEncoding,
    ChunkUnknownType,
    ChunkZstdNoMagic,
    ContainerBadMagic,
    ContainerBadVersion,
    ContainerNoJsonChunk,
    ContainerSizeMismatch,
    ContainerSizeReservedBit,
    ContainerTooShort,
    FileBufferViewInvalid,
    FileDataBoth,
    FileDataMissing,
    FileMimeTypeMissing,
    FileNotPng,
    HumanoidAncestry,
    HumanoidBones,
    HumanoidDuplicate,
    HumanoidHipsPlacement,
    HumanoidNameCase,
    HumanoidVariantOrder,
    HumanoidVariantZero,
    IoError,
    JsonBom,
    JsonControlCharacter,
    JsonDuplicateKey,
    JsonNotObject,
    JsonNotUtf8,
    JsonSyntax,
    MaterialChannelNotObject,
    MaterialChannelTextureInvalid,
    MaterialFactorInvalid,
    MaterialNotObject,
    MeshInstanceMaterialsLength,
    MeshInstanceMaterialInvalid,
    MeshInstanceMeshInvalid,
    MeshInstanceMeshMissing,
    MeshSurfacesEmpty,
    MeshVerticesInvalid,
    MeshVerticesMissing,
    MeshVerticesNotFloat,
    MeshVerticesVectorSize,
    NameControlCharacter,
    NameDuplicate,
    NameForbiddenCharacter,
    NameNotString,
    NodeBasisLength,
    NodeBasisWithRotorOrScale,
    NodeChildrenInvalid,
    NodeChildDuplicate,
    NodeChildInvalid,
    NodeCycle,
    NodeMultipleComponents,
    NodeMultipleParents,
    NodeNotObject,
    NodePositionLength,
    NodeRootAsChild,
    NodeRootTransform,
    NodeRotorLength,
    NodeScaleLength,
    NodeScaleNotPositive,
    NodeTransformNotNumbers,
    NodeUnused,
    NormalsNotUnit,
    NormalsVectorSize,
    SkeletonJointsInvalid,
    SkeletonJointsNotIncreasing,
    SkeletonJointInvalid,
    SkeletonJointNotBone,
    SkeletonJointOutsideSkeleton,
    SkeletonJointParentAfterChild,
    SkeletonJointUncontrolled,
    SkeletonRootBoneNotFirstChild,
    SkeletonRootBoneNotFirstJoint,
    SkinAccessorInvalid,
    SkinAccessorMissing,
    SkinGroupsNotUnsigned,
    SkinGroupBeyondJoints,
    SkinGroupNamesDiffer,
    SkinGroupNameDuplicate,
    SkinGroupNameEmpty,
    SkinGroupNameNotString,
    SkinLengthMismatch,
    SkinMeshNotUnderSkeleton,
    SkinVectorSize,
    SkinVertexOutOfRange,
    SkinVerticesNotAscending,
    SkinVerticesNotUnsigned,
    SkinVerticesUnweighted,
    SkinWeightsNotDescending,
    SkinWeightsNotFloat,
    SkinWeightNegative,
    SkinWeightNotFinite,
    SkinWeightSum,
    SurfaceEdgesInvalid,
    SurfaceEdgesNotInteger,
    SurfaceEdgesVectorSize,
    SurfaceEdgeIndexOutOfRange,
    SurfaceGeometryWithoutEdges,
    SurfaceMaterialInvalid,
    SurfacePolytopeNotFlat,
    SurfacePolytopeWithoutSimplexes,
    SurfaceSeamsWithoutEdges,
    SurfaceSimplexesInvalid,
    SurfaceSimplexesNotInteger,
    SurfaceSimplexesVectorSize,
    SurfaceSimplexIndexOutOfRange,
    TextureFileInvalid,
    TextureImageSizeMismatch,
    TextureMapVectorSize,
    TexturePlaceholderMissing,
    TextureSizeInvalid,
    TextureWrapInvalid,
}

impl Code {
    /// Every code, in name order.
    pub const ALL: [Code; 187] = [
        Code::AccessorBufferViewInvalid,
        Code::AccessorComponentTypeMissing,
        Code::AccessorComponentTypeUnknown,
        Code::AccessorMisaligned,
        Code::AccessorPartialElement,
        Code::AccessorVectorSizeInvalid,
        Code::AssetDimensionMissing,
        Code::AssetDimensionNotInteger,
        Code::AssetExtensionNotDeclared,
        Code::AssetExtensionRequiredNotUsed,
        Code::AssetMissing,
        Code::AssetThumbnailInvalid,
        Code::AssetThumbnailNot2d,
        Code::AssetVersionFormat,
        Code::BindingIndexOutOfRange,
        Code::BindingIndicesNotInteger,
        Code::BindingIndicesVectorSize,
        Code::BindingPerSimplexCount,
        Code::BindingPerSimplexInvalid,
        Code::BindingSimplexesCount,
        Code::BindingSimplexesInvalid,
        Code::BindingSimplexesWithoutSurfaceSimplexes,
        Code::BindingValuesInvalid,
        Code::BindingValuesMissing,
        Code::BindingValuesNotFloat,
        Code::BlendAmountsInvalid,
        Code::BlendAmountsLength,
        Code::BlendIndexOutOfRange,
        Code::BlendIndicesNotUnsigned,
        Code::BlendIndicesVectorSize,
        Code::BlendOffsetsCount,
        Code::BlendOffsetsVectorSize,
        Code::BlendShapesMissing,
        Code::BlendShapeUnnamed,
        Code::BlendSurfacesEmpty,
        Code::BlendSurfacesTooMany,
        Code::BlendSurfaceDuplicate,
        Code::BlendSurfaceEmpty,
        Code::BlendSurfaceInvalid,
        Code::BlendTargetInvalid,
        Code::BoneLengthNegative,
        Code::BoneLengthNotNumber,
        Code::BoneMassNegative,
        Code::BoneNotInSkeleton,
        Code::BoneShapeInvalid,
        Code::BoneShapeWithoutLength,
        Code::BufferByteLengthInvalid,
        Code::BufferChunkAndUri,
        Code::BufferChunkInvalid,
        Code::BufferChunkInText,
        Code::BufferChunkNotBlob,
        Code::BufferDataInvalid,
        Code::BufferDataLonger,
        Code::BufferDataUriInvalid,
        Code::BufferDataUriInBinary,
        Code::BufferEncodingInvalid,
        Code::BufferEncodingMismatch,
        Code::BufferNoData,
        Code::BufferTextWithoutUri,
        Code::BufferTooLarge,
        Code::BufferUriInvalid,
        Code::BufferUriNotRead,
        Code::BufferUriUnreadable,
        Code::BufferViewBufferInvalid,
        Code::BufferViewByteLengthInvalid,
        Code::BufferViewByteOffsetInvalid,
        Code::BufferViewOutOfBounds,
        Code::BufferZstdNoMagic,
        Code::ChunkDecodeFailed,
        Code::ChunkEncodingReserved,
        Code::ChunkHeaderTruncated,
        Code::ChunkJsonPadding,
        Code::ChunkMisaligned,
        Code::ChunkOutOfBounds,
        Code::ChunkSizeReservedBit,
        Code::ChunkUnknownEncoding,
        Code::ChunkUnknownType,
        Code::ChunkZstdNoMagic,
        Code::ContainerBadMagic,
        Code::ContainerBadVersion,
        Code::ContainerNoJsonChunk,
        Code::ContainerSizeMismatch,
        Code::ContainerSizeReservedBit,
        Code::ContainerTooShort,
        Code::FileBufferViewInvalid,
        Code::FileDataBoth,
        Code::FileDataMissing,
        Code::FileMimeTypeMissing,
        Code::FileNotPng,
        Code::HumanoidAncestry,
        Code::HumanoidBones,
        Code::HumanoidDuplicate,
        Code::HumanoidHipsPlacement,
        Code::HumanoidNameCase,
        Code::HumanoidVariantOrder,
        Code::HumanoidVariantZero,
        Code::IoError,
        Code::JsonBom,
        Code::JsonControlCharacter,
        Code::JsonDuplicateKey,
        Code::JsonNotObject,
        Code::JsonNotUtf8,
        Code::JsonSyntax,
        Code::MaterialChannelNotObject,
        Code::MaterialChannelTextureInvalid,
        Code::MaterialFactorInvalid,
        Code::MaterialNotObject,
        Code::MeshInstanceMaterialsLength,
        Code::MeshInstanceMaterialInvalid,
        Code::MeshInstanceMeshInvalid,
        Code::MeshInstanceMeshMissing,
        Code::MeshSurfacesEmpty,
        Code::MeshVerticesInvalid,
        Code::MeshVerticesMissing,
        Code::MeshVerticesNotFloat,
        Code::MeshVerticesVectorSize,
        Code::NameControlCharacter,
        Code::NameDuplicate,
        Code::NameForbiddenCharacter,
        Code::NameNotString,
        Code::NodeBasisLength,
        Code::NodeBasisWithRotorOrScale,
        Code::NodeChildrenInvalid,
        Code::NodeChildDuplicate,
        Code::NodeChildInvalid,
        Code::NodeCycle,
        Code::NodeMultipleComponents,
        Code::NodeMultipleParents,
        Code::NodeNotObject,
        Code::NodePositionLength,
        Code::NodeRootAsChild,
        Code::NodeRootTransform,
        Code::NodeRotorLength,
        Code::NodeScaleLength,
        Code::NodeScaleNotPositive,
        Code::NodeTransformNotNumbers,
        Code::NodeUnused,
        Code::NormalsNotUnit,
        Code::NormalsVectorSize,
        Code::SkeletonJointsInvalid,
        Code::SkeletonJointsNotIncreasing,
        Code::SkeletonJointInvalid,
        Code::SkeletonJointNotBone,
        Code::SkeletonJointOutsideSkeleton,
        Code::SkeletonJointParentAfterChild,
        Code::SkeletonJointUncontrolled,
        Code::SkeletonRootBoneNotFirstChild,
        Code::SkeletonRootBoneNotFirstJoint,
        Code::SkinAccessorInvalid,
        Code::SkinAccessorMissing,
        Code::SkinGroupsNotUnsigned,
        Code::SkinGroupBeyondJoints,
        Code::SkinGroupNamesDiffer,
        Code::SkinGroupNameDuplicate,
        Code::SkinGroupNameEmpty,
        Code::SkinGroupNameNotString,
        Code::SkinLengthMismatch,
        Code::SkinMeshNotUnderSkeleton,
        Code::SkinVectorSize,
        Code::SkinVertexOutOfRange,
        Code::SkinVerticesNotAscending,
        Code::SkinVerticesNotUnsigned,
        Code::SkinVerticesUnweighted,
        Code::SkinWeightsNotDescending,
        Code::SkinWeightsNotFloat,
        Code::SkinWeightNegative,
        Code::SkinWeightNotFinite,
        Code::SkinWeightSum,
        Code::SurfaceEdgesInvalid,
        Code::SurfaceEdgesNotInteger,
        Code::SurfaceEdgesVectorSize,
        Code::SurfaceEdgeIndexOutOfRange,
        Code::SurfaceGeometryWithoutEdges,
        Code::SurfaceMaterialInvalid,
        Code::SurfacePolytopeNotFlat,
        Code::SurfacePolytopeWithoutSimplexes,
        Code::SurfaceSeamsWithoutEdges,
        Code::SurfaceSimplexesInvalid,
        Code::SurfaceSimplexesNotInteger,
        Code::SurfaceSimplexesVectorSize,
        Code::SurfaceSimplexIndexOutOfRange,
        Code::TextureFileInvalid,
        Code::TextureImageSizeMismatch,
        Code::TextureMapVectorSize,
        Code::TexturePlaceholderMissing,
        Code::TextureSizeInvalid,
        Code::TextureWrapInvalid,
    ];

    /// The code as written in reports, e.g. `BUFFER_TOO_LARGE`.
    pub const fn name(self) -> &'static str {
        match self {
            Code::AccessorBufferViewInvalid => "ACCESSOR_BUFFER_VIEW_INVALID",
            Code::AccessorComponentTypeMissing => "ACCESSOR_COMPONENT_TYPE_MISSING",
            Code::AccessorComponentTypeUnknown => "ACCESSOR_COMPONENT_TYPE_UNKNOWN",
            Code::AccessorMisaligned => "ACCESSOR_MISALIGNED",
            Code::AccessorPartialElement => "ACCESSOR_PARTIAL_ELEMENT",
            Code::AccessorVectorSizeInvalid => "ACCESSOR_VECTOR_SIZE_INVALID",
            Code::AssetDimensionMissing => "ASSET_DIMENSION_MISSING",
            Code::AssetDimensionNotInteger => "ASSET_DIMENSION_NOT_INTEGER",
            Code::AssetExtensionNotDeclared => "ASSET_EXTENSION_NOT_DECLARED",
            Code::AssetExtensionRequiredNotUsed => "ASSET_EXTENSION_REQUIRED_NOT_USED",
            Code::AssetMissing => "ASSET_MISSING",
            Code::AssetThumbnailInvalid => "ASSET_THUMBNAIL_INVALID",
            Code::AssetThumbnailNot2d => "ASSET_THUMBNAIL_NOT_2D",
            Code::AssetVersionFormat => "ASSET_VERSION_FORMAT",
            Code::BindingIndexOutOfRange => "BINDING_INDEX_OUT_OF_RANGE",
            Code::BindingIndicesNotInteger => "BINDING_INDICES_NOT_INTEGER",
            Code::BindingIndicesVectorSize => "BINDING_INDICES_VECTOR_SIZE",
            Code::BindingPerSimplexCount => "BINDING_PER_SIMPLEX_COUNT",
            Code::BindingPerSimplexInvalid => "BINDING_PER_SIMPLEX_INVALID",
            Code::BindingSimplexesCount => "BINDING_SIMPLEXES_COUNT",
            Code::BindingSimplexesInvalid => "BINDING_SIMPLEXES_INVALID",
            Code::BindingSimplexesWithoutSurfaceSimplexes => {
                "BINDING_SIMPLEXES_WITHOUT_SURFACE_SIMPLEXES"
            }
            Code::BindingValuesInvalid => "BINDING_VALUES_INVALID",
            Code::BindingValuesMissing => "BINDING_VALUES_MISSING",
            Code::BindingValuesNotFloat => "BINDING_VALUES_NOT_FLOAT",
            Code::BlendAmountsInvalid => "BLEND_AMOUNTS_INVALID",
            Code::BlendAmountsLength => "BLEND_AMOUNTS_LENGTH",
            Code::BlendIndexOutOfRange => "BLEND_INDEX_OUT_OF_RANGE",
            Code::BlendIndicesNotUnsigned => "BLEND_INDICES_NOT_UNSIGNED",
            Code::BlendIndicesVectorSize => "BLEND_INDICES_VECTOR_SIZE",
            Code::BlendOffsetsCount => "BLEND_OFFSETS_COUNT",
            Code::BlendOffsetsVectorSize => "BLEND_OFFSETS_VECTOR_SIZE",
            Code::BlendShapesMissing => "BLEND_SHAPES_MISSING",
            Code::BlendShapeUnnamed => "BLEND_SHAPE_UNNAMED",
            Code::BlendSurfacesEmpty => "BLEND_SURFACES_EMPTY",
            Code::BlendSurfacesTooMany => "BLEND_SURFACES_TOO_MANY",
            Code::BlendSurfaceDuplicate => "BLEND_SURFACE_DUPLICATE",
            Code::BlendSurfaceEmpty => "BLEND_SURFACE_EMPTY",
            Code::BlendSurfaceInvalid => "BLEND_SURFACE_INVALID",
            Code::BlendTargetInvalid => "BLEND_TARGET_INVALID",
            Code::BoneLengthNegative => "BONE_LENGTH_NEGATIVE",
            Code::BoneLengthNotNumber => "BONE_LENGTH_NOT_NUMBER",
            Code::BoneMassNegative => "BONE_MASS_NEGATIVE",
            Code::BoneNotInSkeleton => "BONE_NOT_IN_SKELETON",
            Code::BoneShapeInvalid => "BONE_SHAPE_INVALID",
            Code::BoneShapeWithoutLength => "BONE_SHAPE_WITHOUT_LENGTH",
            Code::BufferByteLengthInvalid => "BUFFER_BYTE_LENGTH_INVALID",
            Code::BufferChunkAndUri => "BUFFER_CHUNK_AND_URI",
            Code::BufferChunkInvalid => "BUFFER_CHUNK_INVALID",
            Code::BufferChunkInText => "BUFFER_CHUNK_IN_TEXT",
            Code::BufferChunkNotBlob => "BUFFER_CHUNK_NOT_BLOB",
            Code::BufferDataInvalid => "BUFFER_DATA_INVALID",
            Code::BufferDataLonger => "BUFFER_DATA_LONGER",
            Code::BufferDataUriInvalid => "BUFFER_DATA_URI_INVALID",
            Code::BufferDataUriInBinary => "BUFFER_DATA_URI_IN_BINARY",
            Code::BufferEncodingInvalid => "BUFFER_ENCODING_INVALID",
            Code::BufferEncodingMismatch => "BUFFER_ENCODING_MISMATCH",
            Code::BufferNoData => "BUFFER_NO_DATA",
            Code::BufferTextWithoutUri => "BUFFER_TEXT_WITHOUT_URI",
            Code::BufferTooLarge => "BUFFER_TOO_LARGE",
            Code::BufferUriInvalid => "BUFFER_URI_INVALID",
            Code::BufferUriNotRead => "BUFFER_URI_NOT_READ",
            Code::BufferUriUnreadable => "BUFFER_URI_UNREADABLE",
            Code::BufferViewBufferInvalid => "BUFFER_VIEW_BUFFER_INVALID",
            Code::BufferViewByteLengthInvalid => "BUFFER_VIEW_BYTE_LENGTH_INVALID",
            Code::BufferViewByteOffsetInvalid => "BUFFER_VIEW_BYTE_OFFSET_INVALID",
            Code::BufferViewOutOfBounds => "BUFFER_VIEW_OUT_OF_BOUNDS",
            Code::BufferZstdNoMagic => "BUFFER_ZSTD_NO_MAGIC",
            Code::ChunkDecodeFailed => "CHUNK_DECODE_FAILED",
            Code::ChunkEncodingReserved => "CHUNK_ENCODING_RESERVED",
            Code::ChunkHeaderTruncated => "CHUNK_HEADER_TRUNCATED",
            Code::ChunkJsonPadding => "CHUNK_JSON_PADDING",
            Code::ChunkMisaligned => "CHUNK_MISALIGNED",
            Code::ChunkOutOfBounds => "CHUNK_OUT_OF_BOUNDS",
            Code::ChunkSizeReservedBit => "CHUNK_SIZE_RESERVED_BIT",
            Code::ChunkUnknownEncoding => "CHUNK_UNKNOWN_ENCODING",
            Code::ChunkUnknownType => "CHUNK_UNKNOWN_TYPE",
            Code::ChunkZstdNoMagic => "CHUNK_ZSTD_NO_MAGIC",
            Code::ContainerBadMagic => "CONTAINER_BAD_MAGIC",
            Code::ContainerBadVersion => "CONTAINER_BAD_VERSION",
            Code::ContainerNoJsonChunk => "CONTAINER_NO_JSON_CHUNK",
            Code::ContainerSizeMismatch => "CONTAINER_SIZE_MISMATCH",
            Code::ContainerSizeReservedBit => "CONTAINER_SIZE_RESERVED_BIT",
            Code::ContainerTooShort => "CONTAINER_TOO_SHORT",
            Code::FileBufferViewInvalid => "FILE_BUFFER_VIEW_INVALID",
            Code::FileDataBoth => "FILE_DATA_BOTH",
            Code::FileDataMissing => "FILE_DATA_MISSING",
            Code::FileMimeTypeMissing => "FILE_MIME_TYPE_MISSING",
            Code::FileNotPng => "FILE_NOT_PNG",
            Code::HumanoidAncestry => "HUMANOID_ANCESTRY",
            Code::HumanoidBones => "HUMANOID_BONES",
            Code::HumanoidDuplicate => "HUMANOID_DUPLICATE",
            Code::HumanoidHipsPlacement => "HUMANOID_HIPS_PLACEMENT",
            Code::HumanoidNameCase => "HUMANOID_NAME_CASE",
            Code::HumanoidVariantOrder => "HUMANOID_VARIANT_ORDER",
            Code::HumanoidVariantZero => "HUMANOID_VARIANT_ZERO",
            Code::IoError => "IO_ERROR",
            Code::JsonBom => "JSON_BOM",
            Code::JsonControlCharacter => "JSON_CONTROL_CHARACTER",
            Code::JsonDuplicateKey => "JSON_DUPLICATE_KEY",
            Code::JsonNotObject => "JSON_NOT_OBJECT",
            Code::JsonNotUtf8 => "JSON_NOT_UTF8",
            Code::JsonSyntax => "JSON_SYNTAX",
            Code::MaterialChannelNotObject => "MATERIAL_CHANNEL_NOT_OBJECT",
            Code::MaterialChannelTextureInvalid => "MATERIAL_CHANNEL_TEXTURE_INVALID",
            Code::MaterialFactorInvalid => "MATERIAL_FACTOR_INVALID",
            Code::MaterialNotObject => "MATERIAL_NOT_OBJECT",
            Code::MeshInstanceMaterialsLength => "MESH_INSTANCE_MATERIALS_LENGTH",
            Code::MeshInstanceMaterialInvalid => "MESH_INSTANCE_MATERIAL_INVALID",
            Code::MeshInstanceMeshInvalid => "MESH_INSTANCE_MESH_INVALID",
            Code::MeshInstanceMeshMissing => "MESH_INSTANCE_MESH_MISSING",
            Code::MeshSurfacesEmpty => "MESH_SURFACES_EMPTY",
            Code::MeshVerticesInvalid => "MESH_VERTICES_INVALID",
            Code::MeshVerticesMissing => "MESH_VERTICES_MISSING",
            Code::MeshVerticesNotFloat => "MESH_VERTICES_NOT_FLOAT",
            Code::MeshVerticesVectorSize => "MESH_VERTICES_VECTOR_SIZE",
            Code::NameControlCharacter => "NAME_CONTROL_CHARACTER",
            Code::NameDuplicate => "NAME_DUPLICATE",
            Code::NameForbiddenCharacter => "NAME_FORBIDDEN_CHARACTER",
            Code::NameNotString => "NAME_NOT_STRING",
            Code::NodeBasisLength => "NODE_BASIS_LENGTH",
            Code::NodeBasisWithRotorOrScale => "NODE_BASIS_WITH_ROTOR_OR_SCALE",
            Code::NodeChildrenInvalid => "NODE_CHILDREN_INVALID",
            Code::NodeChildDuplicate => "NODE_CHILD_DUPLICATE",
            Code::NodeChildInvalid => "NODE_CHILD_INVALID",
            Code::NodeCycle => "NODE_CYCLE",
            Code::NodeMultipleComponents => "NODE_MULTIPLE_COMPONENTS",
            Code::NodeMultipleParents => "NODE_MULTIPLE_PARENTS",
            Code::NodeNotObject => "NODE_NOT_OBJECT",
            Code::NodePositionLength => "NODE_POSITION_LENGTH",
            Code::NodeRootAsChild => "NODE_ROOT_AS_CHILD",
            Code::NodeRootTransform => "NODE_ROOT_TRANSFORM",
            Code::NodeRotorLength => "NODE_ROTOR_LENGTH",
            Code::NodeScaleLength => "NODE_SCALE_LENGTH",
            Code::NodeScaleNotPositive => "NODE_SCALE_NOT_POSITIVE",
            Code::NodeTransformNotNumbers => "NODE_TRANSFORM_NOT_NUMBERS",
            Code::NodeUnused => "NODE_UNUSED",
            Code::NormalsNotUnit => "NORMALS_NOT_UNIT",
            Code::NormalsVectorSize => "NORMALS_VECTOR_SIZE",
            Code::SkeletonJointsInvalid => "SKELETON_JOINTS_INVALID",
            Code::SkeletonJointsNotIncreasing => "SKELETON_JOINTS_NOT_INCREASING",
            Code::SkeletonJointInvalid => "SKELETON_JOINT_INVALID",
            Code::SkeletonJointNotBone => "SKELETON_JOINT_NOT_BONE",
            Code::SkeletonJointOutsideSkeleton => "SKELETON_JOINT_OUTSIDE_SKELETON",
            Code::SkeletonJointParentAfterChild => "SKELETON_JOINT_PARENT_AFTER_CHILD",
            Code::SkeletonJointUncontrolled => "SKELETON_JOINT_UNCONTROLLED",
            Code::SkeletonRootBoneNotFirstChild => "SKELETON_ROOT_BONE_NOT_FIRST_CHILD",
            Code::SkeletonRootBoneNotFirstJoint => "SKELETON_ROOT_BONE_NOT_FIRST_JOINT",
            Code::SkinAccessorInvalid => "SKIN_ACCESSOR_INVALID",
            Code::SkinAccessorMissing => "SKIN_ACCESSOR_MISSING",
            Code::SkinGroupsNotUnsigned => "SKIN_GROUPS_NOT_UNSIGNED",
            Code::SkinGroupBeyondJoints => "SKIN_GROUP_BEYOND_JOINTS",
            Code::SkinGroupNamesDiffer => "SKIN_GROUP_NAMES_DIFFER",
            Code::SkinGroupNameDuplicate => "SKIN_GROUP_NAME_DUPLICATE",
            Code::SkinGroupNameEmpty => "SKIN_GROUP_NAME_EMPTY",
            Code::SkinGroupNameNotString => "SKIN_GROUP_NAME_NOT_STRING",
            Code::SkinLengthMismatch => "SKIN_LENGTH_MISMATCH",
            Code::SkinMeshNotUnderSkeleton => "SKIN_MESH_NOT_UNDER_SKELETON",
            Code::SkinVectorSize => "SKIN_VECTOR_SIZE",
            Code::SkinVertexOutOfRange => "SKIN_VERTEX_OUT_OF_RANGE",
            Code::SkinVerticesNotAscending => "SKIN_VERTICES_NOT_ASCENDING",
            Code::SkinVerticesNotUnsigned => "SKIN_VERTICES_NOT_UNSIGNED",
            Code::SkinVerticesUnweighted => "SKIN_VERTICES_UNWEIGHTED",
            Code::SkinWeightsNotDescending => "SKIN_WEIGHTS_NOT_DESCENDING",
            Code::SkinWeightsNotFloat => "SKIN_WEIGHTS_NOT_FLOAT",
            Code::SkinWeightNegative => "SKIN_WEIGHT_NEGATIVE",
            Code::SkinWeightNotFinite => "SKIN_WEIGHT_NOT_FINITE",
            Code::SkinWeightSum => "SKIN_WEIGHT_SUM",
            Code::SurfaceEdgesInvalid => "SURFACE_EDGES_INVALID",
            Code::SurfaceEdgesNotInteger => "SURFACE_EDGES_NOT_INTEGER",
            Code::SurfaceEdgesVectorSize => "SURFACE_EDGES_VECTOR_SIZE",
            Code::SurfaceEdgeIndexOutOfRange => "SURFACE_EDGE_INDEX_OUT_OF_RANGE",
            Code::SurfaceGeometryWithoutEdges => "SURFACE_GEOMETRY_WITHOUT_EDGES",
            Code::SurfaceMaterialInvalid => "SURFACE_MATERIAL_INVALID",
            Code::SurfacePolytopeNotFlat => "SURFACE_POLYTOPE_NOT_FLAT",
            Code::SurfacePolytopeWithoutSimplexes => "SURFACE_POLYTOPE_WITHOUT_SIMPLEXES",
            Code::SurfaceSeamsWithoutEdges => "SURFACE_SEAMS_WITHOUT_EDGES",
            Code::SurfaceSimplexesInvalid => "SURFACE_SIMPLEXES_INVALID",
            Code::SurfaceSimplexesNotInteger => "SURFACE_SIMPLEXES_NOT_INTEGER",
            Code::SurfaceSimplexesVectorSize => "SURFACE_SIMPLEXES_VECTOR_SIZE",
            Code::SurfaceSimplexIndexOutOfRange => "SURFACE_SIMPLEX_INDEX_OUT_OF_RANGE",
            Code::TextureFileInvalid => "TEXTURE_FILE_INVALID",
            Code::TextureImageSizeMismatch => "TEXTURE_IMAGE_SIZE_MISMATCH",
            Code::TextureMapVectorSize => "TEXTURE_MAP_VECTOR_SIZE",
            Code::TexturePlaceholderMissing => "TEXTURE_PLACEHOLDER_MISSING",
            Code::TextureSizeInvalid => "TEXTURE_SIZE_INVALID",
            Code::TextureWrapInvalid => "TEXTURE_WRAP_INVALID",
        }
    }

    /// The severity every finding of this code has.
    pub const fn severity(self) -> Severity {
        match self {
            Code::AccessorComponentTypeUnknown
            | Code::BufferChunkNotBlob
            | Code::BufferDataLonger
            | Code::BufferDataUriInBinary
            | Code::BlendShapeUnnamed
            | Code::BufferUriNotRead
            | Code::HumanoidHipsPlacement
            | Code::HumanoidNameCase
            | Code::FileDataBoth
            | Code::ChunkJsonPadding
            | Code::ChunkUnknownEncoding
            | Code::JsonDuplicateKey
            | Code::MeshVerticesNotFloat
            | Code::MeshVerticesVectorSize
            | Code::SkeletonJointUncontrolled
            | Code::SkinGroupBeyondJoints
            | Code::SkinMeshNotUnderSkeleton
            | Code::SkinVerticesUnweighted
            | Code::SkinWeightNegative
            | Code::SkinWeightSum => Severity::Warning,
            Code::ChunkUnknownType | Code::HumanoidBones | Code::NodeUnused => Severity::Info,
            _ => Severity::Error,
        }
    }

    /// The part of the pinned specification (G4MF at 5c8fa5f) the code enforces.
    pub const fn spec(self) -> &'static str {
        match self {
            Code::AccessorBufferViewInvalid
            | Code::AccessorComponentTypeMissing
            | Code::AccessorComponentTypeUnknown
            | Code::AccessorMisaligned
            | Code::AccessorPartialElement
            | Code::AccessorVectorSizeInvalid
            | Code::BufferByteLengthInvalid
            | Code::BufferChunkAndUri
            | Code::BufferChunkInvalid
            | Code::BufferChunkInText
            | Code::BufferChunkNotBlob
            | Code::BufferDataInvalid
            | Code::BufferDataLonger
            | Code::BufferDataUriInvalid
            | Code::BufferDataUriInBinary
            | Code::BufferEncodingInvalid
            | Code::BufferEncodingMismatch
            | Code::BufferNoData
            | Code::BufferTextWithoutUri
            | Code::BufferTooLarge
            | Code::BufferUriInvalid
            | Code::BufferUriNotRead
            | Code::BufferUriUnreadable
            | Code::BufferViewBufferInvalid
            | Code::BufferViewByteLengthInvalid
            | Code::BufferViewByteOffsetInvalid
            | Code::BufferViewOutOfBounds
            | Code::BufferZstdNoMagic => "parts/data.md",
            Code::AssetThumbnailInvalid | Code::AssetThumbnailNot2d => "parts/asset.md",
            Code::FileBufferViewInvalid
            | Code::FileDataBoth
            | Code::FileDataMissing
            | Code::FileMimeTypeMissing
            | Code::FileNotPng => "parts/core.md",
            Code::MaterialChannelNotObject
            | Code::MaterialChannelTextureInvalid
            | Code::MaterialFactorInvalid
            | Code::TextureMapVectorSize => "parts/mesh/material.md",
            Code::TextureImageSizeMismatch
            | Code::TexturePlaceholderMissing
            | Code::TextureSizeInvalid
            | Code::TextureWrapInvalid => "parts/texture.md",
            Code::TextureFileInvalid => "parts/texture.md",
            Code::BlendAmountsInvalid
            | Code::BlendAmountsLength
            | Code::BlendIndexOutOfRange
            | Code::BlendIndicesNotUnsigned
            | Code::BlendIndicesVectorSize
            | Code::BlendOffsetsCount
            | Code::BlendOffsetsVectorSize
            | Code::BlendShapesMissing
            | Code::BlendShapeUnnamed
            | Code::BlendSurfaceDuplicate
            | Code::BlendSurfaceEmpty
            | Code::BlendSurfaceInvalid
            | Code::BlendSurfacesEmpty
            | Code::BlendSurfacesTooMany
            | Code::BlendTargetInvalid => "parts/mesh/blend.md",
            Code::HumanoidAncestry
            | Code::HumanoidBones
            | Code::HumanoidDuplicate
            | Code::HumanoidHipsPlacement
            | Code::HumanoidNameCase
            | Code::HumanoidVariantOrder
            | Code::HumanoidVariantZero => "parts/mesh/character_avatar.md",
            Code::AssetDimensionMissing
            | Code::AssetDimensionNotInteger
            | Code::AssetExtensionNotDeclared
            | Code::AssetExtensionRequiredNotUsed
            | Code::AssetMissing
            | Code::AssetVersionFormat => "parts/asset.md",
            Code::BindingIndexOutOfRange
            | Code::BindingIndicesNotInteger
            | Code::BindingIndicesVectorSize
            | Code::BindingPerSimplexCount
            | Code::BindingPerSimplexInvalid
            | Code::BindingSimplexesCount
            | Code::BindingSimplexesInvalid
            | Code::BindingSimplexesWithoutSurfaceSimplexes
            | Code::BindingValuesInvalid
            | Code::BindingValuesMissing
            | Code::BindingValuesNotFloat => "parts/mesh/bindings.md",
            Code::BoneLengthNegative
            | Code::BoneLengthNotNumber
            | Code::BoneMassNegative
            | Code::BoneNotInSkeleton
            | Code::BoneShapeInvalid
            | Code::BoneShapeWithoutLength
            | Code::SkeletonJointsInvalid
            | Code::SkeletonJointsNotIncreasing
            | Code::SkeletonJointInvalid
            | Code::SkeletonJointNotBone
            | Code::SkeletonJointOutsideSkeleton
            | Code::SkeletonJointParentAfterChild
            | Code::SkeletonJointUncontrolled
            | Code::SkeletonRootBoneNotFirstChild
            | Code::SkeletonRootBoneNotFirstJoint
            | Code::SkinAccessorInvalid
            | Code::SkinAccessorMissing
            | Code::SkinGroupsNotUnsigned
            | Code::SkinGroupBeyondJoints
            | Code::SkinGroupNamesDiffer
            | Code::SkinGroupNameDuplicate
            | Code::SkinGroupNameEmpty
            | Code::SkinGroupNameNotString
            | Code::SkinLengthMismatch
            | Code::SkinMeshNotUnderSkeleton
            | Code::SkinVectorSize
            | Code::SkinVertexOutOfRange
            | Code::SkinVerticesNotAscending
            | Code::SkinVerticesNotUnsigned
            | Code::SkinVerticesUnweighted
            | Code::SkinWeightsNotDescending
            | Code::SkinWeightsNotFloat
            | Code::SkinWeightNegative
            | Code::SkinWeightNotFinite
            | Code::SkinWeightSum => "parts/mesh/skeleton.md",
            Code::ChunkDecodeFailed
            | Code::ChunkEncodingReserved
            | Code::ChunkHeaderTruncated
            | Code::ChunkJsonPadding
            | Code::ChunkMisaligned
            | Code::ChunkOutOfBounds
            | Code::ChunkSizeReservedBit
            | Code::ChunkUnknownEncoding
            | Code::ChunkUnknownType
            | Code::ChunkZstdNoMagic
            | Code::ContainerBadMagic
            | Code::ContainerBadVersion
            | Code::ContainerNoJsonChunk
            | Code::ContainerSizeMismatch
            | Code::ContainerSizeReservedBit
            | Code::ContainerTooShort
            | Code::JsonBom
            | Code::JsonControlCharacter
            | Code::JsonDuplicateKey
            | Code::JsonNotObject
            | Code::JsonNotUtf8
            | Code::JsonSyntax => "parts/binary_file_format.md",
            Code::IoError => "(none: the file cannot be read)",
            Code::MaterialNotObject => "parts/mesh/material.md",
            Code::MeshInstanceMaterialsLength
            | Code::MeshInstanceMaterialInvalid
            | Code::MeshInstanceMeshInvalid
            | Code::MeshInstanceMeshMissing => "parts/mesh/node_mesh_instance.md",
            Code::MeshSurfacesEmpty
            | Code::MeshVerticesInvalid
            | Code::MeshVerticesMissing
            | Code::MeshVerticesNotFloat
            | Code::MeshVerticesVectorSize
            | Code::NormalsNotUnit
            | Code::NormalsVectorSize
            | Code::SurfaceEdgesInvalid
            | Code::SurfaceEdgesNotInteger
            | Code::SurfaceEdgesVectorSize
            | Code::SurfaceEdgeIndexOutOfRange
            | Code::SurfaceGeometryWithoutEdges
            | Code::SurfaceMaterialInvalid
            | Code::SurfacePolytopeNotFlat
            | Code::SurfacePolytopeWithoutSimplexes
            | Code::SurfaceSeamsWithoutEdges
            | Code::SurfaceSimplexesInvalid
            | Code::SurfaceSimplexesNotInteger
            | Code::SurfaceSimplexesVectorSize
            | Code::SurfaceSimplexIndexOutOfRange => "parts/mesh/mesh.md",
            Code::NameControlCharacter
            | Code::NameDuplicate
            | Code::NameForbiddenCharacter
            | Code::NameNotString => "parts/core.md",
            Code::NodeBasisLength
            | Code::NodeBasisWithRotorOrScale
            | Code::NodePositionLength
            | Code::NodeRootTransform
            | Code::NodeRotorLength
            | Code::NodeScaleLength
            | Code::NodeScaleNotPositive
            | Code::NodeTransformNotNumbers => "parts/transform.md",
            Code::NodeChildrenInvalid
            | Code::NodeChildDuplicate
            | Code::NodeChildInvalid
            | Code::NodeCycle
            | Code::NodeMultipleComponents
            | Code::NodeMultipleParents
            | Code::NodeNotObject
            | Code::NodeRootAsChild
            | Code::NodeUnused => "parts/node.md",
        }
    }

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
}
