//! DeepSeek V4.1 DSML: V4's elements with a blank after the prefix, `<｜DSML｜ calls>`
//! around `<｜DSML｜ invoke name="NAME">` calls with `<｜DSML｜ parameter name="K"
//! string="true|false">V</｜DSML｜ parameter>` (`string="false"`: the value is JSON).

use super::{Body, CallForm, Dialect, Spec, XmlSpec};

static XML: XmlSpec = XmlSpec {
    name_close: b">",
    key_open: b"<parameter name=",
    key_close: b">",
    value_close: b"</parameter",
    func_close: b"</invoke>",
    tag_prefix: "｜DSML｜ ".as_bytes(),
    ..XmlSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::DeepseekV41,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: "<｜DSML｜ invoke name=".as_bytes(),
        body: Body::Xml(&XML),
        ..CallForm::BASE
    }],
    strip: &[
        "<｜DSML｜ calls>".as_bytes(),
        "</｜DSML｜ calls>".as_bytes(),
        "</｜DSML｜ invoke>".as_bytes(),
        "</｜DSML｜ parameter>".as_bytes(),
        b"</think>",
        "<｜end▁of▁sentence｜>".as_bytes(),
    ],
};
