//! Dialects: marker sets and argument grammars over one engine.
//!
//! A dialect is data: the markers that open and close reasoning, the markers that open
//! a call (each with the grammar of what follows and its closer), and markers to strip
//! wherever they appear. The engine in [`crate::Parser`] interprets this data; no
//! dialect has a parser of its own. `docs/dialects.md` has the table.

mod gemma4;
mod hermes;
mod qwen3_coder;
mod render;
// XML, pythonic and harmony dialects
mod deepseek_dsml;
mod detect;
mod glm;
mod harmony;
mod hunyuan3;
mod minimax_m2;
mod muse_glimmer;
mod names;
mod seed_oss;
// Pythonic dialects and FunctionGemma
mod functiongemma;
mod gemma3;
mod lfm2;
mod olmo3;
mod pythonic;

pub use detect::{Evidence, Source};
// JSON-bodied dialects.
mod command_r;
mod deepseek;
mod functionary;
mod granite;
mod heuristic_json;
mod hunyuan;
mod inkling;
mod internlm;
mod jamba;
mod kimi_k2;
mod llama3_json;
mod minimax_m1;
mod mistral;
mod phi4_mini;
mod xlam;
// Dialects of issue 27.
mod apertus;
mod ernie45;
mod gigachat3;
mod kimi_k3;
mod longcat;
mod minicpm5;
mod minimax_m3;
mod step3;
mod tool_elements;
// Dialects of issue 37.
mod beam;
mod deepseek_v41;
mod dots;
mod gigachat35;
mod iquest_q1;
mod k2_horizon;
mod mimo;
mod plamo3;

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
    /// Hunyuan 3 `<tool_call:opensource>NAME<tool_sep:opensource><arg_key:opensource>...`,
    /// also with plain tags (`<tool_call>NAME<tool_sep><arg_key>...`, Hy3-preview).
    Hunyuan3,
    /// gpt-oss harmony `<|channel|>commentary to=functions.NAME <|constrain|>json
    /// <|message|>{...}<|call|>`, `analysis` channel as reasoning.
    Harmony,
    /// Meta Muse-Glimmer: harmony-style segments with `<atem:invoke name="NAME">
    /// <atem:parameter name="K">V</atem:parameter></atem:invoke>` calls.
    MuseGlimmer,
    // JSON-bodied dialects.
    /// Mistral `[TOOL_CALLS][{"name", "arguments", "id"}]` (before v11) and
    /// `[TOOL_CALLS]NAME[ARGS]{...}` (v11+, also `[CALL_ID]ID`), `[THINK]` reasoning.
    Mistral,
    /// Llama 3.x `{"name", "parameters"}` at the start or after `<|python_tag|>`, `;`
    /// between calls; Llama 4 `<|python_start|>...<|python_end|>`. Bare JSON is
    /// explicit-only (not in `auto`).
    Llama3Json,
    /// DeepSeek V3 / R1 `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` + a fenced JSON
    /// body, and V3.1 `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>`.
    DeepSeekV3,
    /// Kimi K2 `<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}<|tool_call_end|>`.
    KimiK2,
    /// IBM Granite 3.x `<|tool_call|>[...]` / `<tool_call>[...]`, granite-20b
    /// `<function_call> {...}`.
    Granite,
    /// AI21 Jamba `<tool_calls>[...]</tool_calls>`.
    Jamba,
    /// Tencent Hunyuan-A13B `<answer><tool_calls>[...]</tool_calls></answer>`.
    Hunyuan,
    /// MiniMax M1 `<tool_calls>` with one JSON call per line.
    MinimaxM1,
    /// Salesforce xLAM: a JSON array, bare at the start, fenced or after a marker
    /// (opt-in, not in `auto`).
    Xlam,
    /// InternLM2 `<|action_start|><|plugin|>{"name", "parameters"}<|action_end|>`.
    InternLm,
    /// Phi-4-mini `functools[{...}, ...]`.
    Phi4Mini,
    /// Functionary v3.2 `>>>NAME\n{...}` (opt-in, not in `auto`).
    FunctionaryV32,
    /// Functionary v3.1 `<function=NAME>{...}</function>` (opt-in, not in `auto`).
    FunctionaryV31,
    /// Cohere Command R7B / A `<|START_ACTION|>[{"tool_call_id", "tool_name",
    /// "parameters"}]<|END_ACTION|>`.
    CommandR,
    /// Thinking Machines Inkling `<|content_invoke_tool_json|>{"name", "args"}<|end_message|>`.
    Inkling,
    /// A `` ```json `` fenced call (opt-in heuristic, not in `auto`).
    FencedJson,
    /// A bare JSON call at the start of the output (opt-in heuristic, not in `auto`).
    BareJson,
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
    // Dialects of issue 27.
    /// ERNIE 4.5 Thinking `</think>` then `<tool_call>{"name", "arguments"}</tool_call>`,
    /// `<response>` dropped.
    Ernie45,
    /// LongCat `<longcat_tool_call>` with a call object (Flash-Chat) or
    /// `NAME<longcat_arg_key>K</longcat_arg_key><longcat_arg_value>V...` (2601, Lite).
    LongCat,
    /// GigaChat 3 `<|message_sep|>\n\nfunction call<|role_sep|>\n{...}`, 3.1
    /// `<|function_call|>{...}`.
    GigaChat3,
    /// Step 3 `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">
    /// <steptml:parameter name="K">V</steptml:parameter>...`.
    Step3,
    /// Apertus `<|tools_prefix|>[{"NAME": {...}}]<|tools_suffix|>`.
    Apertus,
    /// MiniCPM5 `<function name="NAME"><param name="K">V</param></function>`, CDATA
    /// values.
    MiniCpm5,
    /// Kimi K3 XTML `<|open|>call tool="NAME" index="1"<|sep|><|open|>argument key="K"
    /// type="T"<|sep|>V<|close|>argument<|sep|><|close|>call<|sep|>`.
    KimiK3,
    /// MiniMax M3 `]<]minimax[>[<invoke name="NAME">]<]minimax[>[<K>V]<]minimax[>[</K>...`,
    /// parameters named by their elements.
    MinimaxM3,
    // Dialects of issue 37.
    /// rednote dots.llm `<dots_function_call><invoke name="NAME"><parameter name="K">V
    /// </parameter></invoke></dots_function_call>`, or a JSON call object in the block.
    Dots,
    /// DeepSeek V4.1 DSML with a blank after the prefix: `<｜DSML｜ invoke name="NAME">
    /// <｜DSML｜ parameter name="K" string="true">V</｜DSML｜ parameter></｜DSML｜ invoke>`.
    DeepseekV41,
    /// GigaChat 3.5 GCML `<｜GCML｜tool_calls><｜GCML｜invoke name="NAME"><｜GCML｜parameter
    /// name="K" string="true">V</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>`.
    GigaChat35,
    /// IQuest Q1 `<iquest_tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>
    /// </iquest_tool_call>`.
    IQuestQ1,
    /// Xiaomi MiMo: Qwen3-Coder's `<tool_call><function=NAME><parameter=K>V</parameter>`
    /// with values written compact (their newlines are content).
    MiMo,
    /// PLaMo 3 `<|plamo:begin_tool_name:plamo|>NAME<|plamo:end_tool_name:plamo|>
    /// <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{...}
    /// <|plamo:end_tool_arguments:plamo|>`.
    Plamo3,
    /// K2 Horizon IFM `<ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key>[<ifm|arg_type>T
    /// </ifm|arg_type>]<ifm|arg_value>V</ifm|arg_value></ifm|tool_call>` or a JSON object.
    K2Horizon,
    /// Beam: harmony-style messages, a call ` to=NAME<|channel|>analysis <|constrain|>xml
    /// <|message|><rfl:parameter name="K">\nV\n</rfl:parameter>...<|call|>` (opt-in).
    Beam,
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
        // JSON-bodied dialects.
        Dialect::Mistral,
        Dialect::Llama3Json,
        Dialect::DeepSeekV3,
        Dialect::KimiK2,
        Dialect::Granite,
        Dialect::Jamba,
        Dialect::Hunyuan,
        Dialect::MinimaxM1,
        Dialect::Xlam,
        Dialect::InternLm,
        Dialect::Phi4Mini,
        Dialect::FunctionaryV32,
        Dialect::FunctionaryV31,
        Dialect::CommandR,
        Dialect::Inkling,
        Dialect::FencedJson,
        Dialect::BareJson,
        // Pythonic dialects and FunctionGemma
        Dialect::Pythonic,
        Dialect::Olmo3,
        Dialect::Lfm2,
        Dialect::Gemma3,
        Dialect::FunctionGemma,
        // Dialects of issue 27.
        Dialect::Ernie45,
        Dialect::LongCat,
        Dialect::GigaChat3,
        Dialect::Step3,
        Dialect::Apertus,
        Dialect::MiniCpm5,
        Dialect::KimiK3,
        Dialect::MinimaxM3,
        // Dialects of issue 37.
        Dialect::Dots,
        Dialect::DeepseekV41,
        Dialect::GigaChat35,
        Dialect::IQuestQ1,
        Dialect::MiMo,
        Dialect::Plamo3,
        Dialect::K2Horizon,
        Dialect::Beam,
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
            // JSON-bodied dialects.
            Dialect::Mistral => "mistral",
            Dialect::Llama3Json => "llama3_json",
            Dialect::DeepSeekV3 => "deepseek_v3",
            Dialect::KimiK2 => "kimi_k2",
            Dialect::Granite => "granite",
            Dialect::Jamba => "jamba",
            Dialect::Hunyuan => "hunyuan",
            Dialect::MinimaxM1 => "minimax_m1",
            Dialect::Xlam => "xlam",
            Dialect::InternLm => "internlm",
            Dialect::Phi4Mini => "phi4_mini",
            Dialect::FunctionaryV32 => "functionary_v32",
            Dialect::FunctionaryV31 => "functionary_v31",
            Dialect::CommandR => "command_r",
            Dialect::Inkling => "inkling",
            Dialect::FencedJson => "fenced_json",
            Dialect::BareJson => "bare_json",
            // Pythonic dialects and FunctionGemma
            Dialect::Pythonic => "pythonic",
            Dialect::Olmo3 => "olmo3",
            Dialect::Lfm2 => "lfm2",
            Dialect::Gemma3 => "gemma3",
            Dialect::FunctionGemma => "functiongemma",
            // Dialects of issue 27.
            Dialect::Ernie45 => "ernie45",
            Dialect::LongCat => "longcat",
            Dialect::GigaChat3 => "gigachat3",
            Dialect::Step3 => "step3",
            Dialect::Apertus => "apertus",
            Dialect::MiniCpm5 => "minicpm5",
            Dialect::KimiK3 => "kimi_k3",
            Dialect::MinimaxM3 => "minimax_m3",
            // Dialects of issue 37.
            Dialect::Dots => "dots",
            Dialect::DeepseekV41 => "deepseek_v41",
            Dialect::GigaChat35 => "gigachat35",
            Dialect::IQuestQ1 => "iquest_q1",
            Dialect::MiMo => "mimo",
            Dialect::Plamo3 => "plamo3",
            Dialect::K2Horizon => "k2_horizon",
            Dialect::Beam => "beam",
        }
    }

    /// Look a dialect up by its name or an alias ([`Dialect::aliases`]): every tool-parser
    /// name vLLM and SGLang accept is one (`qwen25`, `deepseekv31`, `gpt-oss`). Case does
    /// not matter, and `-` is the same as `_`.
    pub fn from_name(name: &str) -> Option<Dialect> {
        names::lookup(name)
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
                // Weak openers (`call:`, a bare `{`) and code fences are also ordinary
                // text: a fence in prose that is not a call stays visible.
                let fence = |m: &[u8]| m.starts_with(b"```");
                if !form.anchored && !fence(form.opener) {
                    add(form.opener);
                }
                if !fence(form.closer) {
                    add(form.closer);
                }
            }
            for &m in spec.strip {
                add(m);
            }
        }
        out
    }

    /// The closers of the call bodies this dialect reads inside a call (an XML body's
    /// `</function>` or `</invoke>`) that are not [`markers`](Self::markers): outside a
    /// call they are ordinary text. Output that ends with one ended a body the model
    /// closed itself, so a call it closed was not cut off, even if its wrapper's
    /// closer never came.
    pub fn body_closers(self) -> Vec<&'static [u8]> {
        fn walk(body: &Body, out: &mut Vec<&'static [u8]>) {
            match body {
                Body::Xml(xml) if !xml.func_close.is_empty() && !out.contains(&xml.func_close) => {
                    out.push(xml.func_close);
                }
                Body::Sniff(bodies) => bodies.iter().for_each(|b| walk(b, out)),
                _ => {}
            }
        }
        let specs: Vec<&'static Spec> = match self {
            Dialect::Auto => auto_specs().to_vec(),
            d => vec![d.spec()],
        };
        let mut out = Vec::new();
        for form in specs.iter().flat_map(|s| s.calls) {
            walk(&form.body, &mut out);
        }
        let markers = self.markers();
        out.retain(|c| !markers.contains(c));
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
            // JSON-bodied dialects.
            Dialect::Mistral => &mistral::SPEC,
            Dialect::Llama3Json => &llama3_json::SPEC,
            Dialect::DeepSeekV3 => &deepseek::SPEC,
            Dialect::KimiK2 => &kimi_k2::SPEC,
            Dialect::Granite => &granite::SPEC,
            Dialect::Jamba => &jamba::SPEC,
            Dialect::Hunyuan => &hunyuan::SPEC,
            Dialect::MinimaxM1 => &minimax_m1::SPEC,
            Dialect::Xlam => &xlam::SPEC,
            Dialect::InternLm => &internlm::SPEC,
            Dialect::Phi4Mini => &phi4_mini::SPEC,
            Dialect::FunctionaryV32 => &functionary::V32,
            Dialect::FunctionaryV31 => &functionary::V31,
            Dialect::CommandR => &command_r::SPEC,
            Dialect::Inkling => &inkling::SPEC,
            Dialect::FencedJson => &heuristic_json::FENCED,
            Dialect::BareJson => &heuristic_json::BARE_JSON,
            // Pythonic dialects and FunctionGemma
            Dialect::Pythonic => &pythonic::SPEC,
            Dialect::Olmo3 => &olmo3::SPEC,
            Dialect::Lfm2 => &lfm2::SPEC,
            Dialect::Gemma3 => &gemma3::SPEC,
            Dialect::FunctionGemma => &functiongemma::SPEC,
            // Dialects of issue 27.
            Dialect::Ernie45 => &ernie45::SPEC,
            Dialect::LongCat => &longcat::SPEC,
            Dialect::GigaChat3 => &gigachat3::SPEC,
            Dialect::Step3 => &step3::SPEC,
            Dialect::Apertus => &apertus::SPEC,
            Dialect::MiniCpm5 => &minicpm5::SPEC,
            Dialect::KimiK3 => &kimi_k3::SPEC,
            Dialect::MinimaxM3 => &minimax_m3::SPEC,
            // Dialects of issue 37.
            Dialect::Dots => &dots::SPEC,
            Dialect::DeepseekV41 => &deepseek_v41::SPEC,
            Dialect::GigaChat35 => &gigachat35::SPEC,
            Dialect::IQuestQ1 => &iquest_q1::SPEC,
            Dialect::MiMo => &mimo::SPEC,
            Dialect::Plamo3 => &plamo3::SPEC,
            Dialect::K2Horizon => &k2_horizon::SPEC,
            Dialect::Beam => &beam::SPEC,
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
    /// Skipped between the body and the closer when present (DeepSeek's closing fence).
    pub trailer: &'static [u8],
    /// The end of the opener that is also the start of the body (the `{` of a bare
    /// JSON call): fed to the grammar after the opener matched.
    pub body_prefix: &'static [u8],
    /// The opener counts only at the start of the output (nothing but blanks, markers
    /// and reasoning before it): bare JSON is a call only there.
    pub start_only: bool,
    /// With `start_only`, under `auto` with tools declared: the opener also counts at
    /// the start of any later line, where it begins this body instead (a markerless
    /// Python call list, which names a declared tool; not bare JSON). `None`: only at
    /// the start.
    pub past_start: Option<&'static Body>,
    /// More bodies may follow the first before the closer (or, without a closer, right
    /// after it), separated by blanks, `;` or `,`: JSON lines, `; `-separated objects.
    pub repeats: bool,
    /// Found without a marker (bare or fenced JSON): released only when it names a
    /// declared tool (or no tools are declared).
    pub heuristic: bool,
    /// With `heuristic`: the opener says a call follows (a `` ```tool_call `` fence, a
    /// `TOOL CALL:` label), so the body is never text: call syntax that does not parse
    /// (an example of the format) is reported not released, not shown.
    pub labelled: bool,
    /// The opener follows the tool name: the marker that began the call was swallowed
    /// or omitted (Mistral `NAME[ARGS]{...}` with no `[TOOL_CALLS]`, GLM
    /// `NAME<arg_key>...` with no `<tool_call>`). An identifier (and the blanks after
    /// it) at the start of the output, or right after a call, is held, not shown; when
    /// this opener follows it, the name and then `body_prefix` (the opener itself, for a
    /// body that reads it) are the body's first bytes. Under `auto` only a declared
    /// tool's name is held (none when no tools are declared); with no name held, the
    /// opener is markup and dropped. Calls read this way are `heuristic`.
    pub name_before: bool,
    /// The tool name may also be written as text just before this opener, whose body
    /// names the call itself (Inkling `NAME<|content_invoke_tool_json|>{"name": ...}`):
    /// held as a `name_before` name, it is dropped from the text; it names the call in
    /// a report when the body was cut before its own name, and a body naming another
    /// tool is not released. With no name held, the opener begins its call as usual.
    pub name_told: bool,
    /// What begins the next call of a repeated form with no closer and a one-byte
    /// opener (Llama 3's `; {"name"`): met where the body expects structure, the body
    /// ended unfinished there (not released) and the next call begins. Never inside a
    /// strict JSON object, so a call that reads whole is never cut by one.
    pub next_call: &'static [&'static [u8]],
    /// With `start_only`: once the output began with a call, the opener counts after
    /// text too (Llama 3 JSON calls with text between them). Prose that begins the
    /// output still keeps every opener after it text.
    pub after_calls: bool,
    /// The opener is also a section that wraps the calls (Hunyuan 3's
    /// `<tool_calls:opensource>`), which opens a call itself when the call's own opener
    /// was dropped: a body beginning with markup (`<`) shows it was only the wrapper,
    /// dropped, and the markup is read on.
    pub wrapper: bool,
}

impl CallForm {
    /// The form of a special token's tag prefix (`<｜DSML｜`) whose tag was mangled
    /// after it (`<｜DSML｜toolinvoke name">`): the prefix says a call follows
    /// (`labelled`), one whose opener cannot be read; reported, never text, never
    /// released. A bare prefix (no tag after it) is markup.
    pub(crate) const fn mangled_tag(prefix: &'static [u8], xml: &'static XmlSpec) -> CallForm {
        CallForm {
            opener: prefix,
            body: Body::Xml(xml),
            labelled: true,
            ..CallForm::BASE
        }
    }

    /// The defaults of the optional fields; statics fill the rest with `..CallForm::BASE`.
    pub(crate) const BASE: CallForm = CallForm {
        opener: b"",
        body: Body::Sniff(&[]),
        closer: b"",
        implies: None,
        anchored: false,
        trailer: b"",
        body_prefix: b"",
        start_only: false,
        past_start: None,
        repeats: false,
        heuristic: false,
        labelled: false,
        name_before: false,
        name_told: false,
        next_call: &[],
        after_calls: false,
        wrapper: false,
    };
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
    /// A list found without a marker (`auto`'s bare `[`): held until it shows whether
    /// it is a list of calls (`grammar/call_list.rs`), then read from its `[`.
    pub markerless: bool,
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
    /// The call object's one key is the tool name and its value the arguments
    /// (Apertus `{"NAME": {...}}`); the keys above are not used.
    pub name_is_key: bool,
    /// The model writes the call's id after its arguments (`{"name": ..., "arguments":
    /// {...}, "id": "..."}`): the call starts once its id is read or its object ends,
    /// so that the id it starts with is the model's (its arguments are not streamed
    /// before that).
    pub id_after_arguments: bool,
}

/// The Hermes call object: `arguments` is native; `parameters`, `args` and `input` are
/// repairs.
pub(crate) static HERMES_ENVELOPE: EnvelopeSpec = HERMES;

/// The Hermes call object with the id after the arguments, as Mistral's templates
/// before v11 and LFM2's JSON template write it.
pub(crate) static ID_AFTER_ARGUMENTS_ENVELOPE: EnvelopeSpec = EnvelopeSpec {
    id_after_arguments: true,
    ..HERMES
};

const HERMES: EnvelopeSpec = EnvelopeSpec {
    name_keys: &["name", "tool_name", "function_name"],
    args_keys: &[
        ("arguments", None),
        ("parameters", Some(Repair::ParametersKey)),
        ("args", Some(Repair::ParametersKey)),
        ("input", Some(Repair::ParametersKey)),
    ],
    id_keys: &["id", "tool_call_id", "call_id"],
    name_is_key: false,
    id_after_arguments: false,
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
    /// A tokenizer artifact (MiniMax's `]<]minimax[>[`) dropped wherever it appears in
    /// the body: the call reads as if it were absent. Empty for none.
    pub artifact: &'static [u8],
    /// A separator tag that may follow a name that ends at the next tag (Hy3's
    /// `<tool_sep>` in a GLM-style body); dropped.
    pub name_sep: &'static [u8],
    /// A value may be wrapped in `<![CDATA[` ... `]]>` (MiniCPM5); the wrapper is
    /// dropped and what it holds is the value as written.
    pub cdata: bool,
    /// Non-string values are written as Python prints them (`True`, `['a']`): their
    /// conversion is this grammar's own, not a `python_value` repair.
    pub python_values: bool,
    /// The key tag's attribute that names the value's type (`type="number"`): any type
    /// but `string` means the value is JSON. Empty for none.
    pub type_attr: &'static str,
    /// Opens an element holding the whole arguments as one JSON object (Kimi K3
    /// `<|open|>json type="object"<|sep|>`), in place of parameters; empty for none.
    pub json_open: &'static [u8],
    /// Closes that element (`<|close|>json<|sep|>`).
    pub json_close: &'static [u8],
    /// Parameters are named by their own element (`<city>Paris</city>`); a value made
    /// of elements is an object, or an array when they are all `<item>` (MiniMax M3).
    /// The body is read whole when the function closes.
    pub element_keys: bool,
    /// A namespace marker written before every tag (`]<]minimax[>[<city>`), dropped
    /// wherever it is in a body of elements.
    pub tag_ns: &'static [u8],
    /// Other spellings of `key_open` read as it, with `mismatched_tag` (a
    /// detokenizer's `<paramĠname=`, a lost space `<paramname=`).
    pub key_open_alts: &'static [&'static [u8]],
    /// The function's opening tag (`<invoke name=`): in a body of elements, met where
    /// an element could begin, it ends the call there (its closer was dropped).
    pub func_open: &'static [u8],
    /// Opens an optional element between a key and its value that names the value's
    /// type (K2 Horizon `<ifm|arg_type>`): `string` streams the value as text, any other
    /// type reads it as JSON, unless the schema declares the key. Empty for none.
    pub type_open: &'static [u8],
    /// Closes that element (`</ifm|arg_type>`).
    pub type_close: &'static [u8],
    /// Other markers that end the call as its closer does (Beam's `<|call|>` stop token,
    /// besides `<|end|>`).
    pub closer_alts: &'static [&'static [u8]],
    /// Attribute values (the name's, a key's) undo every XML entity (`&lt;`, `&gt;`,
    /// `&apos;`, `&#39;`, `&#x27;`), not only the `&amp;` and `&quot;` a template writes
    /// (Kimi K3, whose model writes XML-style tags and escapes them as XML does).
    pub attr_entities: bool,
    /// The name is the rest of the function's opening tag (`<tool_read>`, after
    /// `name_open` `<tool_`), and the tag's own closing tag (`</tool_read>`) closes the
    /// function; another closing tag in its place (`</tool_call>`) is `mismatched_tag`.
    pub name_in_tag: bool,
    /// With `name_in_tag`: names that are markup, not tools (`<tool_call>`), so the
    /// tag begins no body of this grammar.
    pub not_names: &'static [&'static [u8]],
    /// The call is one self-closing tag whose arguments are one JSON object in an
    /// attribute (`<tool name="NAME" arguments='{...}'/>`): the name is quoted before
    /// `name_close` (the arguments attribute's start), and the value, quoted either way,
    /// ends at `func_close` (`/>`) right after its object and closing quote. A value
    /// closed by the other quote (`"{...}'`: the quote broke, the object holding `"`)
    /// is `mismatched_quote`; in `"`, its entities are undone (`&quot;`).
    pub attribute_call: bool,
}

impl XmlSpec {
    /// The defaults of the optional fields (`..XmlSpec::BASE`).
    pub(crate) const BASE: XmlSpec = XmlSpec {
        name_open: b"",
        name_close: b"",
        key_open: b"",
        key_close: b"",
        value_close: b"",
        func_close: b"",
        nameless: false,
        value_open: b"",
        framed: false,
        tag_prefix: b"",
        artifact: b"",
        name_sep: b"",
        cdata: false,
        python_values: false,
        type_attr: "",
        json_open: b"",
        json_close: b"",
        element_keys: false,
        tag_ns: b"",
        key_open_alts: &[],
        func_open: b"",
        type_open: b"",
        type_close: b"",
        closer_alts: &[],
        attr_entities: false,
        name_in_tag: false,
        not_names: &[],
        attribute_call: false,
    };

    /// MiniMax M2's elements, which DeepSeek DSML, dots and GigaChat 3.5 reuse (with a
    /// tag prefix or not): `<invoke name="NAME">` with `<parameter name="K">V</parameter>`.
    pub(crate) const INVOKE: XmlSpec = XmlSpec {
        name_close: b">",
        key_open: b"<parameter name=",
        key_close: b">",
        value_close: b"</parameter",
        func_close: b"</invoke>",
        ..XmlSpec::BASE
    };
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
    /// A second separator that also ends the name (DeepSeek V3's `` ```json ``).
    pub alt_separator: &'static [u8],
    /// Ends the name when a call id follows it, up to the separator (Mistral
    /// `NAME[CALL_ID]ID[ARGS]`); empty for none.
    pub id_separator: &'static [u8],
    /// The "name" is a call id that embeds the name (Kimi `functions.NAME:0`): it is
    /// kept as the call id and the name is taken out of it.
    pub name_is_id: bool,
    /// The name is one identifier (Mistral): a `{` right after it opens the arguments
    /// when the separator was dropped (`missing_separator`: `NAME{...}` for
    /// `NAME[ARGS]{...}`), and prose after the opener (`[TOOL_CALLS] not json`) means
    /// the marker began no call: it is dropped and the prose is text.
    pub identifier_name: bool,
}

impl NameArgsSpec {
    /// The defaults of the optional fields (`..NameArgsSpec::BASE`).
    pub(crate) const BASE: NameArgsSpec = NameArgsSpec {
        name_prefix: b"",
        separator: b"",
        alt_string: b"",
        native: &[],
        alt_separator: b"",
        id_separator: b"",
        name_is_id: false,
        identifier_name: false,
    };

    pub(crate) fn native_repairs(&self) -> Repairs {
        self.native.iter().copied().collect()
    }
}

/// Which dialect a body belongs to, for `auto` locking.
pub(crate) fn dialect_of_body(body: &Body) -> Option<Dialect> {
    // A dialect whose own form reads this grammar directly owns it (GLM's tags, also
    // sniffed after Hermes' `<tool_call>`); otherwise the first in `auto` order whose
    // forms reach it (Qwen3-Coder before Hermes: its data is a superset), except that a
    // JSON call object goes to a dialect without XML forms.
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
    let owners = || {
        auto_specs()
            .iter()
            .filter(|spec| spec.calls.iter().any(owns))
    };
    if let Body::Envelope(_) = body {
        // A JSON call object in a wrapper shared with an XML dialect (`<tool_call>`) is
        // the dialect's that writes JSON (Hermes), not the one with XML forms of its own
        // (a weak drift form, Hermes' self-closing `<tool name=`, is none).
        let xml_free = |spec: &&&Spec| {
            !spec
                .calls
                .iter()
                .any(|f| matches!(f.body, Body::Xml(_)) && !f.anchored)
        };
        if let Some(spec) = owners().find(xml_free) {
            return Some(spec.dialect);
        }
    }
    owners().next().map(|spec| spec.dialect)
}

/// The union of every dialect's markers, for `auto`.
pub(crate) fn auto_specs() -> &'static [&'static Spec] {
    // Qwen3-Coder first: its data is a superset of Hermes's (same wrapper and bodies,
    // plus the bare openers), so a sniffed `<tool_call>` body locks onto it.
    // Not in `auto`: the opt-in dialects (`>>>`, Functionary's `<function=`), a bare `[`
    // (pythonic) and Gemma 3's fences (a plain "```" closer):
    // their openers mean other things elsewhere. Olmo 3's `<function_calls>` (DSML's
    // wrapper without its prefix) is tentative: a call only if Python calls follow.
    // Where two dialects share a marker, the first listed reads it.
    static ALL: [&Spec; 42] = [
        &qwen3_coder::SPEC,
        &hermes::AUTO_SPEC,
        &gemma4::SPEC,
        // JSON-bodied dialects.
        &mistral::SPEC,
        &llama3_json::AUTO_SPEC,
        &deepseek::SPEC,
        &kimi_k2::SPEC,
        &granite::SPEC,
        &jamba::SPEC,
        &hunyuan::AUTO_SPEC,
        &minimax_m1::SPEC,
        &internlm::SPEC,
        &phi4_mini::SPEC,
        &command_r::SPEC,
        &inkling::SPEC,
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
        // Dialects of issue 27.
        &ernie45::SPEC,
        &longcat::SPEC,
        &gigachat3::SPEC,
        &step3::SPEC,
        &apertus::SPEC,
        &minicpm5::SPEC,
        &kimi_k3::SPEC,
        &minimax_m3::SPEC,
        // Dialects of issue 37 (MiMo shares Qwen3-Coder's markers and is not here).
        &dots::SPEC,
        &deepseek_v41::SPEC,
        &gigachat35::SPEC,
        &iquest_q1::SPEC,
        &plamo3::SPEC,
        &k2_horizon::SPEC,
        // Tentative in `auto`: DSML strips its opener as a section.
        &olmo3::SPEC,
        // Markerless JSON: a call only when its first key names the tool, and then only
        // for a declared tool whose schema the arguments fit, or, with no tools
        // declared, as the whole output (fences only with tools declared).
        &heuristic_json::BARE_JSON,
        &heuristic_json::FENCED,
    ];
    &ALL
}
