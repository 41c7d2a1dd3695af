//! `VRMC_vrm.meta` (`meta.md`): who made the avatar, what others may do with it (VRM's fixed
//! licence URL and the rights of [`License`]), and the thumbnail, checked a square PNG.

use crate::error::VrmError;
use crate::model::{
    AvatarPermission, CommercialUsage, CreditNotation, License, Meta, Modification,
};
use serde_json::{Map, Value, json};

/// `meta.licenseUrl`: VRM 1.0 accepts only its own licence document (`meta.md`).
pub const LICENSE_URL: &str = "https://vrm.dev/licenses/1.0/";

/// PNG's eight-byte signature.
const PNG_SIGNATURE: [u8; 8] = *b"\x89PNG\r\n\x1a\n";

/// The `meta` object, its thumbnail being image `thumbnail_image` (when it has one); refused
/// without an author, with an empty name or author.
pub(crate) fn meta_json(meta: &Meta, thumbnail_image: Option<u32>) -> Result<Value, VrmError> {
    if meta.name.is_empty() {
        return Err(VrmError::EmptyMetaText { field: "name" });
    }
    if meta.authors.is_empty() {
        return Err(VrmError::NoAuthors);
    }
    if meta.authors.iter().any(String::is_empty) {
        return Err(VrmError::EmptyMetaText { field: "author" });
    }
    let text = |t: &Option<String>| t.as_ref().map(|t| json!(t));
    // The schema wants at least one reference when the list is there.
    let references = (!meta.references.is_empty()).then(|| json!(meta.references));
    let fields = [
        ("name", Some(json!(meta.name))),
        ("version", text(&meta.version)),
        ("authors", Some(json!(meta.authors))),
        ("copyrightInformation", text(&meta.copyright_information)),
        ("contactInformation", text(&meta.contact_information)),
        ("references", references),
        ("thirdPartyLicenses", text(&meta.third_party_licenses)),
        ("thumbnailImage", thumbnail_image.map(|i| json!(i))),
        ("licenseUrl", Some(json!(LICENSE_URL))),
    ];
    let mut object: Map<String, Value> = fields
        .into_iter()
        .filter_map(|(key, value)| Some((key.to_owned(), value?)))
        .collect();
    rights(&meta.license, &mut object);
    Ok(Value::Object(object))
}

/// The rights fields of `license`, every one written (readers fall back to the most
/// conservative value for a missing one, so writing them says what was meant).
fn rights(license: &License, object: &mut Map<String, Value>) {
    let avatar_permission = match license.avatar_permission {
        AvatarPermission::OnlyAuthor => "onlyAuthor",
        AvatarPermission::OnlySeparatelyLicensedPerson => "onlySeparatelyLicensedPerson",
        AvatarPermission::Everyone => "everyone",
    };
    let commercial_usage = match license.commercial_usage {
        CommercialUsage::PersonalNonProfit => "personalNonProfit",
        CommercialUsage::PersonalProfit => "personalProfit",
        CommercialUsage::Corporation => "corporation",
    };
    let credit_notation = match license.credit_notation {
        CreditNotation::Required => "required",
        CreditNotation::Unnecessary => "unnecessary",
    };
    let modification = match license.modification {
        Modification::Prohibited => "prohibited",
        Modification::AllowModification => "allowModification",
        Modification::AllowModificationRedistribution => "allowModificationRedistribution",
    };
    let fields = [
        ("avatarPermission", json!(avatar_permission)),
        (
            "allowExcessivelyViolentUsage",
            json!(license.allow_excessively_violent_usage),
        ),
        (
            "allowExcessivelySexualUsage",
            json!(license.allow_excessively_sexual_usage),
        ),
        ("commercialUsage", json!(commercial_usage)),
        (
            "allowPoliticalOrReligiousUsage",
            json!(license.allow_political_or_religious_usage),
        ),
        (
            "allowAntisocialOrHateUsage",
            json!(license.allow_antisocial_or_hate_usage),
        ),
        ("creditNotation", json!(credit_notation)),
        ("allowRedistribution", json!(license.allow_redistribution)),
        ("modification", json!(modification)),
    ];
    for (key, value) in fields {
        object.insert(key.into(), value);
    }
    if let Some(url) = &license.other_license_url {
        object.insert("otherLicenseUrl".into(), json!(url));
    }
}

/// A PNG's width and height from its header, refused when the bytes are not a PNG or the
/// picture is not square (`meta.md`: "The thumbnail image must be square").
pub(crate) fn check_thumbnail(png: &[u8]) -> Result<(u32, u32), VrmError> {
    let not_png =
        || VrmError::BadThumbnail("is not a PNG (no PNG signature and IHDR header)".into());
    let header = png.get(..24).ok_or_else(not_png)?;
    if header[..8] != PNG_SIGNATURE || &header[12..16] != b"IHDR" {
        return Err(not_png());
    }
    let number = |at: usize| {
        u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    let (width, height) = (number(16), number(20));
    if width == 0 || width != height {
        return Err(VrmError::BadThumbnail(format!(
            "is {width} x {height} pixels: VRM wants a square picture"
        )));
    }
    Ok((width, height))
}
