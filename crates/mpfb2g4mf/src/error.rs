//! Why a conversion fails: one error type for every stage, each variant naming the input at
//! fault and where (file and line:column, JSON pointer, or the folder and what it lacks).

use location::Location;
use std::path::PathBuf;

/// A conversion failed. Each variant says which input is at fault and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The rig cannot be read, checked or fitted.
    #[error(transparent)]
    Rig(#[from] mpfb_rig::RigError),
    /// The mesh or vertex-group file cannot be read.
    #[error(transparent)]
    Mesh(#[from] mpfb_mesh::MeshError),
    /// The weights or bone map cannot be read or resolved.
    #[error(transparent)]
    Weights(#[from] mpfb_weights::WeightsError),
    /// A bone end fell back to its default position (allowed only with `allow_fallback`).
    #[error("{0}")]
    Fallback(Box<FallbackRefused>),
    /// The output could not be built.
    #[error("{0}")]
    Write(#[from] g4mf_writer::WriteError),
    /// The glTF output could not be built.
    #[error("{0}")]
    Gltf(#[from] gltf_writer::GltfError),
    /// The skeleton is not a VRM humanoid (a `.vrm` output): refused before anything is
    /// written.
    #[error("{}: cannot make a VRM avatar: {source}", rig.display())]
    VrmHumanoid {
        /// The rig (or the G4MF file) the skeleton comes from.
        rig: PathBuf,
        /// What VRM's humanoid rules say.
        #[source]
        source: vrm_writer::HumanoidError,
    },
    /// A `.vrm` asked of a rig without weights: VRM's T-pose is judged on the mesh, which no
    /// bone would move.
    #[error(
        "{}: cannot make a VRM avatar without skin weights (no bone would carry the mesh into VRM's T-pose); give --weights",
        rig.display()
    )]
    VrmUnskinned {
        /// The rig.
        rig: PathBuf,
    },
    /// The VRM parts of a `.vrm` output could not be made.
    #[error("{0}")]
    Vrm(#[from] vrm_writer::VrmError),
    /// A `.vrm`'s clip could not be made the `.vrma` beside it.
    #[error("{}: {source}", path.display())]
    Vrma {
        /// The `.vrma` it was to be.
        path: PathBuf,
        /// Why.
        #[source]
        source: vrm_writer::VrmaError,
    },
    /// The output names one of the job's inputs.
    #[error(transparent)]
    SameFile(#[from] crate::paths::SameFile),
    /// The output could not be written.
    #[error("cannot write {path}: {source}")]
    Output {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// An input file is larger than the configured limit.
    #[error(
        "{}: {}larger than the input limit of {limit} bytes",
        path.display(),
        size.map(|s| format!("{s} bytes, ")).unwrap_or_default()
    )]
    InputTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, when it reports one (pipes and devices do not).
        size: Option<u64>,
        /// The limit.
        limit: u64,
    },
    /// The mesh is not MakeHuman's topology.
    #[error(
        "{}: {vertices} vertices, but MakeHuman's base mesh has {expected}: another topology cannot be fitted by vertex number",
        mesh.display()
    )]
    Topology {
        /// The mesh.
        mesh: PathBuf,
        /// Its vertices.
        vertices: usize,
        /// MakeHuman's count.
        expected: usize,
    },
    /// The mesh scale carries a coordinate past the f32 numbers G4MF stores.
    #[error(
        "{}: a coordinate of {} at mesh scale {} is beyond the f32 numbers G4MF stores",
        mesh.display(),
        location::text::short_number(*largest),
        location::text::short_number(*scale)
    )]
    OutOfRange {
        /// The mesh.
        mesh: PathBuf,
        /// Its largest coordinate (absolute value).
        largest: f64,
        /// The scale.
        scale: f64,
    },
    /// Most weight groups name no bone of the rig: weights made for another rig.
    #[error(
        "{}: {unmatched} of its {groups} weight groups name no bone of rig `{rig}`{}",
        weights.display(),
        likely.as_ref().map(|r| format!("; these weights look made for rig `{r}`")).unwrap_or_default()
    )]
    WeightsForAnotherRig {
        /// The weights file.
        weights: PathBuf,
        /// Groups (mask groups left out) that name no bone.
        unmatched: usize,
        /// Groups (mask groups left out).
        groups: usize,
        /// The rig's name.
        rig: String,
        /// The rig the weights file's name suggests.
        likely: Option<String>,
    },
    /// With `--validate`: the encoded file fails validation, so it was not written (the file
    /// that was there is unchanged).
    #[error(
        "{}: the new file fails validation ({errors} errors; first: {first}); it was not written",
        path.display()
    )]
    Invalid {
        /// The output.
        path: PathBuf,
        /// Errors found.
        errors: usize,
        /// The first error's code and message.
        first: String,
    },
    /// A diagnostic `--deny` names was said: the job stops before its file is written.
    #[error("{}: {diagnostic} (denied by --deny: nothing was written)", path.display())]
    Denied {
        /// The output not written.
        path: PathBuf,
        /// The first denied diagnostic.
        diagnostic: Box<crate::diagnostics::Diagnostic>,
    },
    /// An input file is larger than any file of its kind.
    #[error("{}: larger than {limit} bytes: not a {kind}", path.display())]
    NotThisKind {
        /// The file.
        path: PathBuf,
        /// What it should be.
        kind: &'static str,
        /// The most bytes of such a file.
        limit: u64,
    },
    /// A job asks for more of something than the converter allows.
    #[error("{count} {what} is more than the limit of {limit}")]
    TooMany {
        /// What was counted.
        what: &'static str,
        /// How many there are.
        count: usize,
        /// The most allowed.
        limit: usize,
    },
    /// A body description cannot be read or resolved.
    #[error(transparent)]
    Body(#[from] mpfb_body::description::DescriptionError),
    /// A target file cannot be read.
    #[error(transparent)]
    Target(#[from] mpfb_body::TargetError),
    /// A target moves a vertex the mesh does not have (the mesh is not MakeHuman's base mesh).
    #[error(transparent)]
    Morph(#[from] mpfb_body::morph::MorphError),
    /// Targets apply to a Y-up mesh in MakeHuman's numbering.
    #[error("targets are in base.obj's Y-up frame; a Z-up mesh cannot be morphed")]
    MorphZUp,
    /// A pose file cannot be read.
    #[error(transparent)]
    Pose(#[from] mpfb_rig::PoseError),
    /// A rest pose cannot be made.
    #[error("rest pose: {0}")]
    RestPose(String),
    /// A BVH pose or clip cannot be applied.
    #[error("pose: {0}")]
    BodyPose(String),
    /// Humanoid names cannot be used (a table's, or those matched on the rig).
    #[error("humanoid {table}: {}", problems.join("; "))]
    Humanoid {
        /// The table (`table FILE`, `table humanoid/NAME.json`) or `names matched on RIG`.
        table: String,
        /// What is wrong, one entry per problem.
        problems: Vec<String>,
    },
    /// An input shared with other jobs of a batch failed to load (each job reports it).
    #[error(transparent)]
    Shared(std::sync::Arc<ConvertError>),
    /// The MPFB data folder cannot be found or lacks what the job needs.
    #[error(transparent)]
    Data(#[from] mpfb_data::DataError),
    /// `--rest-pose t-pose` for a rig MPFB ships a T-pose for, without MPFB data to take it
    /// from (computing one instead would silently differ from MPFB's).
    #[error(
        "rig `{rig}` has MPFB's T-pose ({path}), but no MPFB data folder was found to read it from"
    )]
    NoTPoseData {
        /// The rig name.
        rig: String,
        /// The pose file relative to a data folder.
        path: String,
    },
    /// An asset asked for is not in the assets folder.
    #[error("{asked}: no {kind} `{name}` in {}{note}", folder.display())]
    UnknownAsset {
        /// Its kind.
        kind: String,
        /// The name, uuid or file asked for.
        name: String,
        /// Where it was asked (a description's line, or a flag).
        asked: String,
        /// The folder searched.
        folder: std::path::PathBuf,
        /// Near names, and whether the folder was indexed whole (empty, or starting with a
        /// separator).
        note: String,
    },
    /// An asset was asked for by name, but no assets folder was found.
    #[error(
        "{kind} `{name}` needs a MakeHuman assets folder: give --assets DIR, set $MAKEHUMAN_ASSETS, or run `mpfb2g4mf data fetch --makehuman-assets`"
    )]
    NoAssets {
        /// Its kind.
        kind: String,
        /// The name asked for.
        name: String,
    },
    /// An asset file cannot be used.
    #[error(transparent)]
    Asset(#[from] makehuman_assets::AssetError),
    /// MakeHuman's files for expressions are not in the assets folder.
    #[error(
        "--expression-shapes needs {missing} in the assets folder {}; `mpfb2g4mf data fetch --makehuman-assets` installs them (`data status` lists what a folder lacks)",
        folder.display()
    )]
    ExpressionFiles {
        /// The assets folder.
        folder: std::path::PathBuf,
        /// What it lacks.
        missing: String,
    },
    /// A `.vrm` would write two expression files as one blend shape.
    #[error(
        "{}: a .vrm writes the expression asked as the blend shape `{name}`, which --expression-shapes already gives {}",
        file.display(),
        other.display()
    )]
    ExpressionNamedTwice {
        /// The shape's name.
        name: String,
        /// The expression asked (`--expression` or the description's line).
        file: PathBuf,
        /// The file `--expression-shapes` names by that name.
        other: PathBuf,
    },
    /// A pose, expression, skeleton or pose-unit file cannot be used.
    #[error(transparent)]
    Motion(makehuman_poses::PoseError),
    /// The writer refused what an input made (a bone, a face, an influence, a texture): the
    /// input named, the writer's error saying where in the character.
    #[error("{}: {source}", file.display())]
    Made {
        /// The input that made the refused part.
        file: PathBuf,
        /// The writer's error.
        #[source]
        source: Box<ConvertError>,
    },
    /// The body mesh has no face to write.
    #[error("{}: {why}", mesh.display())]
    NoFaces {
        /// The mesh file.
        mesh: PathBuf,
        /// Why none is left.
        why: &'static str,
    },
    /// A path an asset file or material names leaves the folder it must stay in.
    #[error(
        "{}: `{key} {named}` leaves {}: an asset's files stay in its assets folder",
        file.display(),
        folder.display()
    )]
    OutsideFolder {
        /// The asset file or material.
        file: std::path::PathBuf,
        /// The key naming the path (`obj_file`, `diffuseTexture`, ...).
        key: String,
        /// The path as named.
        named: String,
        /// The folder it must stay in.
        folder: std::path::PathBuf,
    },
    /// An asset, by name or uuid, matches several files and nothing singles one out.
    #[error("{asked}: {kind} `{name}` matches several assets ({candidates}): name one by its file")]
    AmbiguousAsset {
        /// Its kind.
        kind: String,
        /// The name or uuid asked for.
        name: String,
        /// Where it was asked.
        asked: String,
        /// The matching files.
        candidates: String,
    },
    /// An asset asked for twice: a character wears an asset once (MakeHuman keys worn
    /// assets by uuid).
    #[error("{asked}: {kind} {} is already worn ({first}): an asset is worn once", asset.display())]
    WornTwice {
        /// Its kind.
        kind: String,
        /// Its file.
        asset: std::path::PathBuf,
        /// Where it was asked again.
        asked: String,
        /// Where it was first asked.
        first: String,
    },
    /// `--eye-material` with no eyes to colour (named in the message).
    #[error("{0}")]
    NoEyesToColour(String),
    /// A file asked for as one kind of asset is another kind's file.
    #[error("{asked}: {} is not a {kind} file (`.{extension}`){hint}", file.display())]
    WrongAssetFile {
        /// The kind asked for.
        kind: String,
        /// The extension it needs.
        extension: &'static str,
        /// The file.
        file: std::path::PathBuf,
        /// Where it was asked.
        asked: String,
        /// What it is, when known.
        hint: String,
    },
    /// An asset cannot be fitted or weighted.
    #[error("{asset}: {problem}")]
    Wear {
        /// The asset file.
        asset: std::path::PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A job names no rig: neither a rig file, a rig name, nor a description naming one.
    #[error("give a rig: --rig FILE, --rig-name NAME or --human FILE")]
    NoRig,
    /// A job's settings cannot be used.
    #[error(transparent)]
    Settings(#[from] crate::options::SettingsError),
    /// An input file cannot be read.
    #[error("{location}: {source}")]
    Input {
        /// The file.
        location: Location,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An input file is not valid JSON.
    #[error("{location}: {message}")]
    Syntax {
        /// Where.
        location: Location,
        /// What the parser said.
        message: String,
    },
}

/// A bone end that would fall back to its default position, refused.
#[derive(Debug, thiserror::Error)]
#[error(
    "{location}: bone `{bone}` {end} cannot be placed on the mesh {mesh} ({reason}); its default position would be used",
    mesh = mesh.display()
)]
pub struct FallbackRefused {
    /// The rig file and the end's JSON pointer.
    pub location: Location,
    /// The mesh file.
    pub mesh: PathBuf,
    /// The bone.
    pub bone: String,
    /// Which end.
    pub end: String,
    /// Why.
    pub reason: String,
}

impl ConvertError {
    /// The error itself, or the one a shared input failed with.
    pub fn root(&self) -> &ConvertError {
        match self {
            ConvertError::Shared(inner) => inner.root(),
            other => other,
        }
    }
}

impl crate::diagnostics::Diagnostics {
    /// Stops the job writing `output` when `--deny` refuses something said: called by the
    /// write stage before anything replaces a file.
    pub(crate) fn refuse_denied(
        &self,
        output: &std::path::Path,
    ) -> Result<(), crate::error::ConvertError> {
        match self.first_denied() {
            None => Ok(()),
            Some(diagnostic) => Err(crate::error::ConvertError::Denied {
                path: output.to_path_buf(),
                diagnostic: Box::new(diagnostic.clone()),
            }),
        }
    }
}
