//! Dialects: marker sets and argument grammars over one engine.
//!
//! A dialect is data: the markers that open and close reasoning, the markers that open
//! a call (each with the grammar of what follows and its closer), and markers to strip
//! wherever they appear. The engine in [`crate::Parser`] interprets this data; no
//! dialect has a parser of its own. `docs/dialects.md` has the table.

mod gemma4;
mod hermes;
mod qwen3_coder;
// XML, pythonic and harmony dialects
mod deepseek_dsml;
mod detect;
mod glm;
mod harmony;
mod hunyuan3;
mod minimax_m2;
mod muse_glimmer;
mod seed_oss;
// Pythonic dialects and FunctionGemma
mod functiongemma;
mod gemma3;
mod lfm2;
mod olmo3;
mod pythonic;

pub use detect::{Evidence, Source};

use crate::repairs::{Repair, Repairs};

/// A tool-call dialect.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Lock onto whichever dialect's call marker appears first.
    #[default]
    Auto,
    /// Hermes / Qwen `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
    Hermes,
    /// Qwen3-Coder `<tool_call><function=NAME><parameter=KEY>value</parameter>...`.
    Qwen3Coder,
    /// Gemma 4 `<|tool_call>call:NAME{key:<|"|>value<|"|>}<tool_call|>`.
    Gemma4,
    // XML, pythonic and harmony dialects
    /// Seed-OSS `<seed:tool_call><function=NAME><parameter=KEY>...`, `<seed:think>`.
    SeedOss,
    /// GLM-4.5/4.6/4.7/5 and Laguna `<tool_call>NAME<arg_key>K</arg_key><arg_value>V
    /// </arg_value></tool_call>`.
    Glm,
    /// MiniMax M2 `<minimax:tool_call><invoke name="NAME"><parameter name="K">V
    /// </parameter></invoke></minimax:tool_call>`.
    MinimaxM2,
    /// DeepSeek V3.2/V4 DSML `<｜DSML｜invoke name="NAME"><｜DSML｜parameter name="K"
    /// string="true">V</｜DSML｜parameter></｜DSML｜invoke>`.
    DeepseekDsml,
    /// Hunyuan 3 `<tool_call:opensource>NAME<tool_sep:opensource><arg_key:opensource>...`.
    Hunyuan3,
    /// gpt-oss harmony `<|channel|>commentary to=functions.NAME <|constrain|>json
    /// <|message|>{...}<|call|>`, `analysis` channel as reasoning.
    Harmony,
    /// Meta Muse-Glimmer: harmony-style segments with `<atem:invoke name="NAME">
    /// <atem:parameter name="K">V</atem:parameter></atem:invoke>` calls.
    MuseGlimmer,
    // Pythonic dialects and FunctionGemma
    /// Llama 3.2/4 pythonic `[get_weather(city='Paris'), f()]`, bare at the start of a
    /// line or in `<|python_start|>` ... `<|python_end|>`.
    Pythonic,
    /// Olmo 3 `<function_calls>` one Python call per line `</function_calls>`.
    Olmo3,
    /// LFM2 `<|tool_call_start|>[name(arg="v")]<|tool_call_end|>` (or a JSON array).
    Lfm2,
    /// Gemma 3 ```` ```tool_code ```` fenced Python calls, `tool_code = f(...)`.
    Gemma3,
    /// FunctionGemma `<start_function_call>call:NAME{k:<escape>v<escape>}
    /// <end_function_call>`.
    FunctionGemma,
}

impl Dialect {
    /// Every concrete dialect (not `Auto`).
    pub const ALL: &'static [Dialect] = &[
        Dialect::Hermes,
        Dialect::Qwen3Coder,
        Dialect::Gemma4,
        // XML, pythonic and harmony dialects
        Dialect::SeedOss,
        Dialect::Glm,
        Dialect::MinimaxM2,
        Dialect::DeepseekDsml,
        Dialect::Hunyuan3,
        Dialect::Harmony,
        Dialect::MuseGlimmer,
        // Pythonic dialects and FunctionGemma
        Dialect::Pythonic,
        Dialect::Olmo3,
        Dialect::Lfm2,
        Dialect::Gemma3,
        Dialect::FunctionGemma,
    ];

    /// The dialect's stable name (`auto`, `hermes`, `qwen3_coder`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Auto => "auto",
            Dialect::Hermes => "hermes",
            Dialect::Qwen3Coder => "qwen3_coder",
            Dialect::Gemma4 => "gemma4",
            // XML, pythonic and harmony dialects
            Dialect::SeedOss => "seed_oss",
            Dialect::Glm => "glm45",
            Dialect::MinimaxM2 => "minimax_m2",
            Dialect::DeepseekDsml => "deepseek_v32",
            Dialect::Hunyuan3 => "hunyuan3",
            Dialect::Harmony => "harmony",
            Dialect::MuseGlimmer => "muse_glimmer",
            // Pythonic dialects and FunctionGemma
            Dialect::Pythonic => "pythonic",
            Dialect::Olmo3 => "olmo3",
            Dialect::Lfm2 => "lfm2",
            Dialect::Gemma3 => "gemma3",
            Dialect::FunctionGemma => "functiongemma",
        }
    }

    /// Look a dialect up by name (also common aliases: `qwen`, `qwen25`, `qwen3_xml`).
    pub fn from_name(name: &str) -> Option<Dialect> {
        let n = name.to_ascii_lowercase().replace('-', "_");
        Some(match n.as_str() {
            "auto" => Dialect::Auto,
            "hermes" | "qwen" | "qwen25" | "qwen2_5" | "qwen3" => Dialect::Hermes,
            "qwen3_coder" | "qwen3coder" | "qwen3_xml" | "nemotron" => Dialect::Qwen3Coder,
            "gemma4" | "gemma_4" => Dialect::Gemma4,
            // XML, pythonic and harmony dialects
            "nemotron3" | "nemotron_3" | "nemotron_nano" | "nemotron3_nano" | "step3p5" => {
                Dialect::Qwen3Coder
            }
            "seed_oss" | "seed" | "seedoss" => Dialect::SeedOss,
            "glm45" | "glm4_moe" | "glm46" | "glm47" | "glm5" | "glm" | "laguna" | "poolside" => {
                Dialect::Glm
            }
            "minimax_m2" | "minimax2" | "minimax_m2_5" => Dialect::MinimaxM2,
            "deepseek_v32" | "deepseekv32" | "deepseek_v3_2" | "deepseek_v4" | "deepseekv4"
            | "dsml" => Dialect::DeepseekDsml,
            "hunyuan3" | "hunyuan_3" | "hy3" => Dialect::Hunyuan3,
            "harmony" | "gpt_oss" | "gptoss" | "openai" => Dialect::Harmony,
            "muse_glimmer" | "glimmer" | "muse" => Dialect::MuseGlimmer,
            // Pythonic dialects and FunctionGemma
            "pythonic" | "llama4_pythonic" | "llama3_pythonic" | "llama32_pythonic" => {
                Dialect::Pythonic
            }
            "olmo3" | "olmo_3" | "olmo" => Dialect::Olmo3,
            "lfm2" | "lfm2_5" | "lfm" | "liquid" => Dialect::Lfm2,
            "gemma3" | "gemma_3" | "tool_code" => Dialect::Gemma3,
            "functiongemma" | "function_gemma" => Dialect::FunctionGemma,
            _ => return None,
        })
    }

    /// Every marker this dialect knows (for `Auto`, every dialect's): openers, closers,
    /// reasoning markers and stripped tokens. None of them ever reaches visible text.
    pub fn markers(self) -> Vec<&'static [u8]> {
        let specs: Vec<&'static Spec> = match self {
            Dialect::Auto => auto_specs().to_vec(),
            d => vec![d.spec()],
        };
        let mut out: Vec<&'static [u8]> = Vec::new();
        let mut add = |m: &'static [u8]| {
            if !m.is_empty() && !out.contains(&m) {
                out.push(m);
            }
        };
        for spec in specs {
            for &(open, close) in spec.reasoning {
                add(open);
                add(close);
            }
            for form in spec.calls {
                if !form.anchored {
                    add(form.opener);
                }
                add(form.closer);
            }
            for &m in spec.strip {
                add(m);
            }
        }
        out
    }

    pub(crate) fn spec(self) -> &'static Spec {
        match self {
            Dialect::Auto | Dialect::Hermes => &hermes::SPEC,
            Dialect::Qwen3Coder => &qwen3_coder::SPEC,
            Dialect::Gemma4 => &gemma4::SPEC,
            // XML, pythonic and harmony dialects
            Dialect::SeedOss => &seed_oss::SPEC,
            Dialect::Glm => &glm::SPEC,
            Dialect::MinimaxM2 => &minimax_m2::SPEC,
            Dialect::DeepseekDsml => &deepseek_dsml::SPEC,
            Dialect::Hunyuan3 => &hunyuan3::SPEC,
            Dialect::Harmony => &harmony::SPEC,
            Dialect::MuseGlimmer => &muse_glimmer::SPEC,
            // Pythonic dialects and FunctionGemma
            Dialect::Pythonic => &pythonic::SPEC,
            Dialect::Olmo3 => &olmo3::SPEC,
            Dialect::Lfm2 => &lfm2::SPEC,
            Dialect::Gemma3 => &gemma3::SPEC,
            Dialect::FunctionGemma => &functiongemma::SPEC,
        }
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Dialect {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Dialect, crate::Error> {
        Dialect::from_name(s).ok_or_else(|| {
            crate::Error::new(crate::Category::Syntax, format!("unknown dialect {s:?}"))
        })
    }
}

/// A dialect as data.
#[derive(Debug)]
pub(crate) struct Spec {
    pub dialect: Dialect,
    /// Reasoning blocks: (opener, closer).
    pub reasoning: &'static [(&'static [u8], &'static [u8])],
    /// The ways a call can begin.
    pub calls: &'static [CallForm],
    /// Markers removed wherever they appear outside calls (orphan closers, end tokens).
    pub strip: &'static [&'static [u8]],
}

/// One way a call begins: its opening marker, what follows, and how it ends.
#[derive(Debug)]
pub(crate) struct CallForm {
    pub opener: &'static [u8],
    /// What follows the opener.
    pub body: Body,
    /// The closing marker after the body; empty when the call ends with its value.
    pub closer: &'static [u8],
    /// A repair this opener implies (a bare `<function=` is a dropped `<tool_call>`).
    pub implies: Option<Repair>,
    /// A weak opener (plain words like `call:`): it counts only at the start of a line,
    /// and if what follows is not a call, it and what was read stay text.
    pub anchored: bool,
}

/// The grammar of a call body.
#[derive(Debug)]
pub(crate) enum Body {
    /// A JSON object naming the call (`{"name": ..., "arguments": {...}}`) or an array
    /// of them.
    Envelope(&'static EnvelopeSpec),
    /// XML-style name and parameters.
    Xml(&'static XmlSpec),
    /// The name, then a separator (or the `{` that starts the arguments), then a JSON
    /// (or JSON-like) arguments object.
    NameArgs(&'static NameArgsSpec),
    /// One of several bodies, chosen by how the body begins.
    Sniff(&'static [Body]),
    // XML, pythonic and harmony dialects
    /// A harmony message header up to `<|message|>`: a call when it names a recipient.
    Harmony(&'static HarmonySpec),
    /// Python calls: a list `[f(a=1), g()]` or one call per line.
    Pythonic(&'static PythonicSpec),
}

/// A Python call grammar.
#[derive(Debug)]
pub(crate) struct PythonicSpec {
    /// The opener already was the list's `[` (a bare list).
    pub in_list: bool,
}

/// A harmony-style header grammar.
#[derive(Debug)]
pub(crate) struct HarmonySpec {
    /// A recipient makes the message a call whose content is JSON arguments (gpt-oss);
    /// otherwise the header is only dropped (the content has its own call markup).
    pub json_args: bool,
    /// The closer of the reasoning block the `analysis` channel opens.
    pub reasoning_close: &'static [u8],
}

/// Keys of a JSON call object.
#[derive(Debug)]
pub(crate) struct EnvelopeSpec {
    /// Keys holding the tool name.
    pub name_keys: &'static [&'static str],
    /// Keys holding the arguments, each with the repair its use implies (none for the
    /// dialect's own key).
    pub args_keys: &'static [(&'static str, Option<Repair>)],
    /// Keys holding the call id.
    pub id_keys: &'static [&'static str],
}

/// The Hermes call object: `arguments` is native; `parameters`, `args` and `input` are
/// repairs.
pub(crate) static HERMES_ENVELOPE: EnvelopeSpec = EnvelopeSpec {
    name_keys: &["name", "tool_name", "function_name"],
    args_keys: &[
        ("arguments", None),
        ("parameters", Some(Repair::ParametersKey)),
        ("args", Some(Repair::ParametersKey)),
        ("input", Some(Repair::ParametersKey)),
    ],
    id_keys: &["id", "tool_call_id", "call_id"],
};

/// Markers of an XML-parameter grammar.
#[derive(Debug)]
pub(crate) struct XmlSpec {
    /// Opens the function name (`<function=`); the opener itself when it already is.
    pub name_open: &'static [u8],
    /// Ends the name (`>`); a tag (`<tool_sep>`) when the name is followed by a
    /// separator; empty when the name ends natively at a newline or the next tag.
    pub name_close: &'static [u8],
    /// Opens a parameter key (`<parameter=`).
    pub key_open: &'static [u8],
    /// Ends the key (`>`).
    pub key_close: &'static [u8],
    /// Closes a value (`</parameter>`); misspellings starting with it are accepted.
    pub value_close: &'static [u8],
    /// Closes the function (`</function>`).
    pub func_close: &'static [u8],
    /// The body starts at the first parameter: the name (and its tag) were dropped.
    pub nameless: bool,
    /// Opens a value after its key (`<arg_value>`); empty when the value follows the key.
    pub value_open: &'static [u8],
    /// Values carry one framing newline on each side (Qwen3-Coder), removed.
    pub framed: bool,
    /// A prefix that may follow `<` or `</` in any tag and is ignored (`｜DSML｜`).
    pub tag_prefix: &'static [u8],
}

/// Markers of a name-then-arguments grammar.
#[derive(Debug)]
pub(crate) struct NameArgsSpec {
    /// Skipped before the name when present (`call:`).
    pub name_prefix: &'static [u8],
    /// Ends the name; empty when the name ends at the `{` that opens the arguments.
    pub separator: &'static [u8],
    /// The dialect's raw string delimiter (`<|"|>`), empty for none.
    pub alt_string: &'static [u8],
    /// Repairs that are this grammar's normal syntax (bare keys), not reported.
    pub native: &'static [Repair],
}

impl NameArgsSpec {
    pub(crate) fn native_repairs(&self) -> Repairs {
        self.native.iter().copied().collect()
    }
}

/// Which dialect a body belongs to, for `auto` locking.
pub(crate) fn dialect_of_body(body: &Body) -> Option<Dialect> {
    // A dialect whose own form reads this grammar directly owns it (GLM's tags, also
    // sniffed after Hermes' `<tool_call>`); otherwise the first in `auto` order whose
    // forms reach it (Qwen3-Coder before Hermes: its data is a superset).
    if let Body::Xml(spec) = body {
        let direct = auto_specs().iter().find(|s| {
            s.calls
                .iter()
                .any(|form| matches!(&form.body, Body::Xml(own) if std::ptr::eq(*own, *spec)))
        });
        if let Some(s) = direct {
            return Some(s.dialect);
        }
    }
    let owns = |form: &CallForm| match &form.body {
        Body::Sniff(list) => list.iter().any(|b| std::ptr::eq(b, body)),
        b => std::ptr::eq(b, body),
    };
    auto_specs()
        .iter()
        .find(|spec| spec.calls.iter().any(owns))
        .map(|spec| spec.dialect)
}

/// The union of every dialect's markers, for `auto`.
pub(crate) fn auto_specs() -> &'static [&'static Spec] {
    // Qwen3-Coder first: its data is a superset of Hermes's (same wrapper and bodies,
    // plus the bare openers), so a sniffed `<tool_call>` body locks onto it.
    // Not in `auto`: a bare `[` (pythonic), Olmo 3's `<function_calls>` (DSML's wrapper
    // without its prefix) and Gemma 3's fences (a plain "```" closer).
    static ALL: [&Spec; 13] = [
        &qwen3_coder::SPEC,
        &hermes::SPEC,
        &gemma4::SPEC,
        // XML, pythonic and harmony dialects
        &seed_oss::SPEC,
        &glm::SPEC,
        &minimax_m2::SPEC,
        &deepseek_dsml::SPEC,
        &hunyuan3::SPEC,
        &harmony::SPEC,
        &muse_glimmer::SPEC,
        // Pythonic dialects and FunctionGemma
        &pythonic::AUTO_SPEC,
        &lfm2::SPEC,
        &functiongemma::SPEC,
    ];
    &ALL
}
