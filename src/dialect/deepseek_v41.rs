//! DeepSeek V4.1 DSML: V4's elements with a blank after the prefix, `<｜DSML｜ calls>`
//! around `<｜DSML｜ invoke name="NAME">` calls with `<｜DSML｜ parameter name="K"
//! string="true|false">V</｜DSML｜ parameter>` (`string="false"`: the value is JSON).

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot, Text as T},
    THINK_TIGHT,
};

static XML: XmlSpec = XmlSpec {
    tag_prefix: "｜DSML｜ ".as_bytes(),
    ..XmlSpec::INVOKE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::DeepseekV41,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: "<｜DSML｜ invoke name=".as_bytes(),
            body: Body::Xml(&XML),
            ..CallForm::BASE
        },
        CallForm::mangled_tag("<｜DSML｜".as_bytes(), &XML),
    ],
    strip: &[
        "<｜DSML｜ calls>".as_bytes(),
        "</｜DSML｜ calls>".as_bytes(),
        "</｜DSML｜ invoke>".as_bytes(),
        "</｜DSML｜ parameter>".as_bytes(),
        b"</think>",
        "<｜end▁of▁sentence｜>".as_bytes(),
    ],
};

/// `string="true"`: the value is raw text; `"false"`: JSON.
static PARAMS: Params = Params {
    param: "<｜DSML｜ parameter name=\"$key\" string=\"$string\">$value</｜DSML｜ parameter>\n",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)), as
/// xgrammar's `deepseek_v4_1` structural tag lays them out.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "deepseek_v41",
    note: "DeepSeek V4.1",
    reasoning: THINK_TIGHT,
    text: &[Slot, T("\n\n")],
    calls_open: &[M("<｜DSML｜ calls>"), T("\n")],
    call: "<｜DSML｜ invoke name=\"$name\">\n$args</｜DSML｜ invoke>",
    args: Args::Params(&PARAMS),
    between: &[T("\n")],
    calls_close: &[T("\n"), M("</｜DSML｜ calls>")],
    end_of_turn: "<｜end▁of▁sentence｜>",
    closing_markup: &[
        "</｜DSML｜ parameter>",
        "</｜DSML｜ invoke>",
        "</｜DSML｜ calls>",
    ],
    ..Layout::BASE
}];
