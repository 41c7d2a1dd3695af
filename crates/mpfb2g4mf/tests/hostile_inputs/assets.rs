//! Issue 41's asset classes through the real CLI: asset files and materials checked for kind
//! and content, their paths kept in the assets folder, non-regular files refused before they
//! are opened, ambiguous names refused naming the candidates, an asset worn once,
//! `--eye-material` with no eyes to colour refused, and error lines naming the flag, offering
//! near names and escaping control characters.

use super::{BODY, HEAD, cli, convert, dressed_assets, fake_assets, refused, stderr};

use std::path::Path;
use std::process::Output;

/// A fake assets folder whose clothes are the plain `bad.mhclo` (no material): the folder and
/// the `.mhclo`.
fn plain_assets(dir: &Path, case: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    fake_assets(dir, case, &format!("{HEAD}{BODY}"))
}

/// `convert --rig-name default --assets ASSETS ARGS` into `out`.
fn dressed(data: &Path, out: &Path, assets: &Path, args: &[&str]) -> Output {
    let mut all = vec![
        "--rig-name",
        "default",
        "--assets",
        assets.to_str().unwrap(),
    ];
    all.extend(args);
    convert(data, out, &all)
}

#[test]
fn asset_files_and_materials_are_checked_for_kind_content_and_folder() {
    let data = test_support::mpfb_data_or_skip!(
        asset_files_and_materials_are_checked_for_kind_content_and_folder
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");

    // A text file that names no material key is not a material.
    let assets = dressed_assets(
        dir.path(),
        "readme",
        "README.mhmat",
        Some("# Notes\nThis folder holds a shirt.\n"),
        &[],
    );
    refused(
        &dressed(&data, &out, &assets, &["--clothes", "bad"]),
        &out,
        &["README.mhmat: no material key", "not a MakeHuman material"],
    );

    // A material read through `..` from outside the assets folder.
    let assets = dressed_assets(dir.path(), "outside", "../../../secret.mhmat", None, &[]);
    std::fs::write(dir.path().join("secret.mhmat"), "diffuseColor 1 0 0\n").unwrap();
    refused(
        &dressed(&data, &out, &assets, &["--clothes", "bad"]),
        &out,
        &[
            "bad.mhclo: `material ../../../secret.mhmat` leaves",
            "outside",
        ],
    );
    // A texture of a material likewise, and an absolute `obj_file`.
    let assets = dressed_assets(
        dir.path(),
        "texture",
        "bad.mhmat",
        Some("diffuseTexture ../../../../etc/hostname\n"),
        &[],
    );
    refused(
        &dressed(&data, &out, &assets, &["--clothes", "bad"]),
        &out,
        &["bad.mhmat: `diffuseTexture ../../../../etc/hostname` leaves"],
    );
    let (assets, _) = fake_assets(
        dir.path(),
        "absolute",
        &format!("name bad\nobj_file /dev/zero\n{BODY}"),
    );
    refused(
        &dressed(&data, &out, &assets, &["--clothes", "bad"]),
        &out,
        &["bad.mhclo: `obj_file /dev/zero` leaves"],
    );

    // A `.mhclo` is no body topology, a body's `.proxy` no garment.
    let (assets, file) = plain_assets(dir.path(), "kind");
    let proxy = assets.join("clothes/bad/body.proxy");
    std::fs::copy(&file, &proxy).unwrap();
    refused(
        &dressed(&data, &out, &assets, &["--proxy", file.to_str().unwrap()]),
        &out,
        &[
            "--proxy: ",
            "bad.mhclo is not a body topology file (`.proxy`)",
        ],
    );
    refused(
        &dressed(
            &data,
            &out,
            &assets,
            &["--clothes", proxy.to_str().unwrap()],
        ),
        &out,
        &[
            "--clothes: ",
            "body.proxy is not a clothes file (`.mhclo`)",
            "give it to --proxy",
        ],
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_named_by_an_asset_is_refused_before_it_is_opened() {
    let data =
        test_support::mpfb_data_or_skip!(a_fifo_named_by_an_asset_is_refused_before_it_is_opened);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    // Opening a FIFO nobody writes blocks forever: it must not be opened at all.
    let (assets, _) = fake_assets(
        dir.path(),
        "fifo",
        &format!("name bad\nobj_file pipe.obj\n{BODY}"),
    );
    let fifo = assets.join("clothes/bad/pipe.obj");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.unwrap().success());
    refused(
        &dressed(&data, &out, &assets, &["--clothes", "bad"]),
        &out,
        &["pipe.obj: a FIFO, not a regular file"],
    );
    // A directory as the material, and a FIFO as the description.
    let assets = dressed_assets(dir.path(), "folder", "textures", None, &[]);
    std::fs::create_dir_all(assets.join("clothes/bad/textures")).unwrap();
    refused(
        &dressed(&data, &out, &assets, &["--clothes", "bad"]),
        &out,
        &["textures: a directory, not a regular file"],
    );
    let human = dir.path().join("human.mhm");
    let made = std::process::Command::new("mkfifo").arg(&human).status();
    assert!(made.unwrap().success());
    refused(
        &convert(&data, &out, &["--human", human.to_str().unwrap()]),
        &out,
        &["human.mhm: a FIFO, not a regular file"],
    );
}

#[test]
fn several_matches_are_refused_naming_them_and_an_asset_is_worn_once() {
    let data = test_support::mpfb_data_or_skip!(
        several_matches_are_refused_naming_them_and_an_asset_is_worn_once
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let (assets, file) = plain_assets(dir.path(), "twice");
    let folder = assets.join("clothes/bad");
    // A folder holding two assets: its name singles none out.
    let pair = assets.join("clothes/pair");
    std::fs::create_dir_all(&pair).unwrap();
    std::fs::copy(folder.join("bad.obj"), pair.join("bad.obj")).unwrap();
    for name in ["one", "two"] {
        let text = format!("name {name}\nobj_file bad.obj\n{BODY}");
        std::fs::write(pair.join(format!("{name}.mhclo")), text).unwrap();
    }
    refused(
        &dressed(&data, &out, &assets, &["--clothes", "pair"]),
        &out,
        &[
            "--clothes: clothes `pair` matches several assets (",
            "one.mhclo",
            "two.mhclo",
        ],
    );
    std::fs::remove_dir_all(&pair).unwrap();
    // Names differing only by case: asked in a third case, neither is meant more.
    let copy = assets.join("clothes/Bad2");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(folder.join("bad.obj"), copy.join("bad.obj")).unwrap();
    std::fs::write(
        copy.join("Bad2.mhclo"),
        format!("name BAD\nobj_file bad.obj\n{BODY}"),
    )
    .unwrap();
    refused(
        &dressed(&data, &out, &assets, &["--clothes", "Bad"]),
        &out,
        &[
            "--clothes: clothes `Bad` matches several assets (",
            "Bad2.mhclo",
            "bad.mhclo",
        ],
    );
    // The exact name decides.
    let worn = dressed(&data, &out, &assets, &["--clothes", "BAD"]);
    assert!(worn.status.success(), "{}", stderr(&worn));
    std::fs::remove_file(&out).unwrap();
    // A copy that kept its uuid, asked by uuid from a description.
    std::fs::write(
        copy.join("Bad2.mhclo"),
        format!("name bad\nuuid u-1\nobj_file bad.obj\n{BODY}"),
    )
    .unwrap();
    std::fs::write(
        &file,
        format!("name bad\nuuid u-1\nobj_file bad.obj\n{BODY}"),
    )
    .unwrap();
    let human = dir.path().join("dressed.mhm");
    std::fs::write(
        &human,
        "version v1.2.0\nskeleton default.mhskel\nclothes bad u-1\n",
    )
    .unwrap();
    refused(
        &dressed(&data, &out, &assets, &["--human", human.to_str().unwrap()]),
        &out,
        &["dressed.mhm:3", "clothes `bad` matches several assets ("],
    );
    std::fs::remove_dir_all(&copy).unwrap();
    // The same garment twice (by name and by file): MakeHuman keys worn assets by uuid and
    // wears each once, so a second ask is refused, naming both.
    refused(
        &dressed(
            &data,
            &out,
            &assets,
            &["--clothes", "bad", "--clothes", file.to_str().unwrap()],
        ),
        &out,
        &["is already worn (--clothes): an asset is worn once"],
    );
}

#[test]
fn eye_material_with_no_eyes_to_colour_is_refused() {
    let data = test_support::mpfb_data_or_skip!(eye_material_with_no_eyes_to_colour_is_refused);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let (assets, _) = plain_assets(dir.path(), "eyes");
    refused(
        &dressed(
            &data,
            &out,
            &assets,
            &["--eyes", "none", "--eye-material", "blue"],
        ),
        &out,
        &["--eye-material `blue`: `--eyes none` wears no eyes to colour"],
    );
    // The fake folder has no eye asset: the helper eyes stay and take the material's colour
    // (`eyes_and_proxies.rs`), so a material the folder lacks is an error, not dropped.
    refused(
        &dressed(&data, &out, &assets, &["--eye-material", "blue"]),
        &out,
        &["--eye-material: no eye material `blue`"],
    );
}

#[test]
fn asset_lines_name_the_flag_offer_near_names_and_escape_controls() {
    let data = test_support::mpfb_data_or_skip!(
        asset_lines_name_the_flag_offer_near_names_and_escape_controls
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let (assets, _) = plain_assets(dir.path(), "lines");
    refused(
        &dressed(&data, &out, &assets, &["--hair", "nosuch"]),
        &out,
        &["--hair: no hair `nosuch` in "],
    );
    refused(
        &dressed(&data, &out, &assets, &["--clothes", "bda"]),
        &out,
        &["--clothes: no clothes `bda` in ", "(did you mean `bad`?)"],
    );
    // An escape sequence asked for reaches the terminal escaped.
    let result = dressed(&data, &out, &assets, &["--clothes", "x\u{1b}[2Jy"]);
    refused(&result, &out, &["`x\\u{1b}[2Jy`"]);
    assert!(!stderr(&result).contains('\u{1b}'));
}

#[test]
fn a_folder_past_the_index_cap_says_so() {
    let data = test_support::mpfb_data_or_skip!(a_folder_past_the_index_cap_says_so);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let (assets, _) = plain_assets(dir.path(), "many");
    // 20,001 more files than the index takes: an asset it does not find may be one it did
    // not index, and the line says so.
    let many = assets.join("clothes/aaa");
    std::fs::create_dir_all(&many).unwrap();
    for i in 0..20_001 {
        std::fs::write(many.join(format!("a{i:05}.mhclo")), "").unwrap();
    }
    refused(
        &dressed(&data, &out, &assets, &["--clothes", "nosuch"]),
        &out,
        &[
            "only the first 20000 `.mhclo` files of",
            "name the asset by its file",
        ],
    );
}

#[test]
fn a_target_typo_names_the_flag_and_near_names() {
    let data = test_support::mpfb_data_or_skip!(a_target_typo_names_the_flag_and_near_names);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    refused(
        &convert(
            &data,
            &out,
            &["--rig-name", "default", "--target", "breast-dist-incrr=0.5"],
        ),
        &out,
        &["--target: no target named `breast-dist-incrr` (did you mean `breast-dist-incr`"],
    );
}

#[test]
fn a_straight_t_pose_says_which_limb_it_left_bent() {
    let data = test_support::mpfb_data_or_skip!(a_straight_t_pose_says_which_limb_it_left_bent);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    // The default rig's humanoid table without the left upper leg.
    let printed = super::cli()
        .args([
            "convert",
            "--quiet",
            "--helpers",
            "none",
            "--rig-name",
            "default",
        ])
        .arg("--mpfb-data")
        .arg(&data)
        .args(["--humanoid-print-map", "-o"])
        .arg(dir.path().join("m.g4b"))
        .output()
        .unwrap();
    assert!(printed.status.success(), "{}", stderr(&printed));
    let mut table: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&printed.stdout).unwrap();
    table.retain(|k, v| k != "//" && v != "LeftUpperLeg");
    let map = dir.path().join("no-left-leg.json");
    std::fs::write(&map, serde_json::to_vec(&table).unwrap()).unwrap();
    let result = super::cli()
        .args([
            "convert",
            "--json",
            "--helpers",
            "none",
            "--rig-name",
            "default",
        ])
        .arg("--mpfb-data")
        .arg(&data)
        .args(["--rest-pose", "straight-t-pose", "--humanoid-map"])
        .arg(&map)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let summary: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    assert!(
        summary["warnings"].as_array().unwrap().iter().any(|w| {
            let message = w["message"].as_str().unwrap();
            w["code"] == "REST_POSE_LIMB_BENT"
                && message.contains("the left leg (LeftUpperLeg down to LeftLowerLeg) not found")
                && message.contains("left as it rests, not straightened")
        }),
        "{summary}"
    );
}

#[test]
fn a_body_topology_is_measured_as_fitted() {
    let data = test_support::mpfb_data_or_skip!(a_body_topology_is_measured_as_fitted);
    let Some(assets) = test_support::makehuman_assets() else {
        test_support::skip_or_fail("assets_proxy_height", "no MakeHuman assets folder");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    // proxy741's 741 vertices were once measured as the base mesh's first 741: 0.194 m tall,
    // with advice making a 19 m body.
    let result = super::cli()
        .args([
            "convert",
            "--json",
            "--rig-name",
            "default",
            "--proxy",
            "proxy741",
        ])
        .arg("--mpfb-data")
        .arg(&data)
        .arg("--assets")
        .arg(&assets)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let summary = String::from_utf8_lossy(&result.stdout);
    assert!(summary.contains("proxy741"), "{summary}");
    assert!(!summary.contains("m tall"), "{summary}");
}

#[test]
fn a_population_draw_is_named_where_no_flag_was_given() {
    let data = test_support::mpfb_data_or_skip!(a_population_draw_is_named_where_no_flag_was_given);
    let dir = tempfile::tempdir().unwrap();
    let (assets, _) = plain_assets(dir.path(), "draw");
    let manifest = dir.path().join("m.toml");
    std::fs::write(
        &manifest,
        format!(
            "[population]\nrig = \"default\"\noutput = \"b{{index}}.g4b\"\ncount = 1\n\
             [population.draw]\nhair = [\"nosuch\"]\n[defaults]\nassets = {:?}\nhelpers = \"none\"\n",
            assets.display().to_string()
        ),
    )
    .unwrap();
    let result = super::cli()
        .args(["batch", "--quiet"])
        .arg(&manifest)
        .env("MPFB_DATA", &data)
        .output()
        .unwrap();
    let text = stderr(&result);
    assert_eq!(result.status.code(), Some(1), "{text}");
    assert!(
        text.contains("the population's draw of `hair`: no hair `nosuch` in ")
            && !text.contains("a flag"),
        "{text}"
    );
    assert!(!dir.path().join("b0.g4b").exists());
}

#[test]
fn an_asset_name_with_an_escape_sequence_reaches_the_summary_escaped() {
    let data = test_support::mpfb_data_or_skip!(
        an_asset_name_with_an_escape_sequence_reaches_the_summary_escaped
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let (assets, file) = fake_assets(
        dir.path(),
        "escapes",
        &format!("name b\u{1b}[31mad\nobj_file bad.obj\n{BODY}"),
    );
    // Not `--quiet`: the summary is what is looked at.
    let result = cli()
        .args([
            "convert",
            "--rig-name",
            "default",
            "--eyes",
            "none",
            "--mpfb-data",
        ])
        .arg(&data)
        .arg("--assets")
        .arg(&assets)
        .arg("--clothes")
        .arg(&file)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let said = stderr(&result);
    assert!(
        said.contains("assets    b\\u{1b}[31mad (clothes)"),
        "{said}"
    );
    assert!(!said.contains('\u{1b}'), "{said}");
}
