//! What a dialect is called: one table of names that `Dialect::from_name`, the command
//! line, the proxy's per-model rules and `toolsift dialects` all read; and how a
//! dialect's calls open, for listings and for suggesting a name when one is not known.
//!
//! Every tool-parser name vLLM and SGLang accept (`--tool-call-parser NAME`) is in the
//! table, as the dialect's own name or an alias: `scripts/server_parsers.py` compares the
//! table with both servers' registries, so a name they add later fails a check.

use super::{auto_specs, Dialect};

/// Every dialect with the other names it answers to, in `Dialect::ALL` order.
///
/// Server names that are not the dialect's own: vLLM's `qwen3_json`, `granite4`,
/// `cohere_command4`, `musespark1x`, `step5` and SGLang's `qwen25`, `nanbeige`,
/// `spark25`, `trinity`, `ling3`, `poolside_v1` write a format another dialect reads.
/// vLLM's `hf` and SGLang's `response_template` read a format the checkpoint declares
/// (its `response_template` metadata): `auto` reads every format it may declare.
static ALIASES: &[(Dialect, &[&str])] = &[
    (Dialect::Auto, &["hf", "response_template"]),
    (
        Dialect::Hermes,
        &[
            "qwen",
            "qwen25",
            "qwen2_5",
            "qwen3",
            "qwen3_json",
            "granite4",
            "trinity",
        ],
    ),
    (
        Dialect::Qwen3Coder,
        &[
            "qwen3coder",
            "qwen3_xml",
            "nemotron",
            "nemotron3",
            "nemotron_3",
            "nemotron_nano",
            "nemotron3_nano",
            "step3p5",
            "step5",
            "nanbeige",
        ],
    ),
    (Dialect::Gemma4, &["gemma_4"]),
    (Dialect::SeedOss, &["seed", "seedoss"]),
    (
        Dialect::Glm,
        &[
            "glm4_moe",
            "glm46",
            "glm47",
            "glm5",
            "glm",
            "laguna",
            "poolside",
            "poolside_v1",
            "ling3",
            "spark25",
        ],
    ),
    (Dialect::MinimaxM2, &["minimax2", "minimax_m2_5"]),
    (
        Dialect::DeepseekDsml,
        &[
            "deepseekv32",
            "deepseek_v3_2",
            "deepseek_v4",
            "deepseekv4",
            "dsml",
        ],
    ),
    (
        Dialect::Hunyuan3,
        &["hunyuan_3", "hy3", "hy_v3", "hyv3", "hy3_preview"],
    ),
    (Dialect::Harmony, &["gpt_oss", "gptoss", "openai"]),
    (
        Dialect::MuseGlimmer,
        &["glimmer", "muse", "musespark1x", "muse_spark"],
    ),
    (
        Dialect::Mistral,
        &["mistral_nemo", "magistral", "ministral", "devstral"],
    ),
    (
        Dialect::Llama3Json,
        &[
            "llama3",
            "llama",
            "llama4_json",
            "llama3_1",
            "llama3_2",
            "llama3_3",
        ],
    ),
    (
        Dialect::DeepSeekV3,
        &[
            "deepseekv3",
            "deepseek_r1",
            "deepseekr1",
            "deepseek_v31",
            "deepseekv31",
            "deepseek",
        ],
    ),
    (Dialect::KimiK2, &["kimik2", "kimi"]),
    (
        Dialect::Granite,
        &["granite3", "granite_20b_fc", "granite_20b"],
    ),
    (Dialect::Jamba, &[]),
    (Dialect::Hunyuan, &["hunyuan_a13b", "hy_v4", "hyv4", "hy4"]),
    (Dialect::MinimaxM1, &["minimax"]),
    (Dialect::Xlam, &[]),
    (Dialect::InternLm, &["internlm2", "internlm2_5", "interns1"]),
    (
        Dialect::Phi4Mini,
        &["phi4_mini_json", "phi4", "firefunction"],
    ),
    (
        Dialect::FunctionaryV32,
        &["functionary", "functionary_v3_2"],
    ),
    (Dialect::FunctionaryV31, &["functionary_v3_1"]),
    (
        Dialect::CommandR,
        &[
            "command_r7b",
            "command_a",
            "cohere",
            "cohere_command3",
            "cohere_command4",
        ],
    ),
    (Dialect::Inkling, &[]),
    (Dialect::FencedJson, &["fenced"]),
    (Dialect::BareJson, &["json"]),
    (
        Dialect::Pythonic,
        &["llama4_pythonic", "llama3_pythonic", "llama32_pythonic"],
    ),
    (Dialect::Olmo3, &["olmo_3", "olmo"]),
    (Dialect::Lfm2, &["lfm2_5", "lfm", "liquid"]),
    (Dialect::Gemma3, &["gemma_3", "tool_code"]),
    (Dialect::FunctionGemma, &["function_gemma"]),
    (Dialect::Ernie45, &["ernie4_5", "ernie", "ernie_x1"]),
    (Dialect::LongCat, &["longcat_flash"]),
    (Dialect::GigaChat3, &["gigachat3_1", "gigachat"]),
    (Dialect::Step3, &["steptml"]),
    (Dialect::Apertus, &["apertus2509"]),
    (Dialect::MiniCpm5, &["minicpm5xml", "minicpm"]),
    (Dialect::KimiK3, &["kimik3", "xtml"]),
    (Dialect::MinimaxM3, &["minimax3"]),
    // Dialects of issue 37.
    (Dialect::Dots, &["dots_llm", "dots1"]),
    (Dialect::DeepseekV41, &["deepseekv41", "deepseek_v4_1"]),
    (Dialect::GigaChat35, &["gigachat3_5", "gcml"]),
    (Dialect::IQuestQ1, &["iquest", "iquestq1"]),
    (Dialect::MiMo, &["xiaomi_mimo"]),
    (Dialect::Plamo3, &["plamo", "plamo_3"]),
    (Dialect::K2Horizon, &["k2_v3", "k2v3", "ifm"]),
    (Dialect::Beam, &[]),
];

/// A name as the table holds it: lowercase, `-` read as `_`.
fn normalize(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace('-', "_")
}

/// The dialect `name` (a dialect's name or an alias) stands for.
pub(super) fn lookup(name: &str) -> Option<Dialect> {
    let n = normalize(name);
    [Dialect::Auto]
        .iter()
        .chain(Dialect::ALL)
        .copied()
        .find(|d| d.name() == n || d.aliases().contains(&n.as_str()))
}

impl Dialect {
    /// The other names [`Dialect::from_name`] accepts for this dialect, every vLLM and
    /// SGLang tool-parser name that writes its format among them (`-` and `_` are the
    /// same in a name, and case does not matter).
    pub fn aliases(self) -> &'static [&'static str] {
        ALIASES
            .iter()
            .find(|(d, _)| *d == self)
            .map_or(&[], |(_, names)| names)
    }

    /// The markers that open a call in this dialect, in the order they are tried (for
    /// `Auto`, none of its own: it locks onto any dialect that takes part in it).
    pub fn openers(self) -> Vec<&'static [u8]> {
        if self == Dialect::Auto {
            return Vec::new();
        }
        let mut out: Vec<&'static [u8]> = Vec::new();
        for form in self.spec().calls {
            if !form.opener.is_empty() && !out.contains(&form.opener) {
                out.push(form.opener);
            }
        }
        out
    }

    /// Whether [`Dialect::Auto`] locks onto this dialect's markers (the opt-in dialects,
    /// whose openers mean other things elsewhere, take no part).
    pub fn in_auto(self) -> bool {
        auto_specs().iter().any(|spec| spec.dialect == self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_alias_finds_its_dialect_once() {
        let mut seen = std::collections::HashSet::new();
        for &d in Dialect::ALL.iter().chain([&Dialect::Auto]) {
            assert_eq!(Dialect::from_name(d.name()), Some(d));
            assert!(seen.insert(d.name()), "{} listed twice", d.name());
            for &alias in d.aliases() {
                assert_eq!(alias, normalize(alias), "{alias} is not written normalized");
                assert_eq!(Dialect::from_name(alias), Some(d), "alias {alias}");
                assert!(seen.insert(alias), "{alias} listed twice");
            }
        }
        // The table lists every dialect once, in `ALL` order.
        let listed: Vec<Dialect> = ALIASES.iter().map(|(d, _)| *d).collect();
        let all: Vec<Dialect> = [Dialect::Auto]
            .iter()
            .chain(Dialect::ALL)
            .copied()
            .collect();
        assert_eq!(listed, all);
    }

    /// The tool-parser names vLLM 0.33 and SGLang 0.5.23 ship, as their registries spell
    /// them, with the dialect each maps to. `scripts/server_parsers.py` checks the
    /// installed registries against the table (a name added later fails there); this
    /// keeps the mapping itself under `cargo test`.
    #[test]
    fn server_parser_names_map_to_their_dialects() {
        let table: &[(&str, Dialect)] = &[
            // vLLM
            ("apertus", Dialect::Apertus),
            ("beam", Dialect::Beam),
            ("cohere_command3", Dialect::CommandR),
            ("cohere_command4", Dialect::CommandR),
            ("deepseek_v3", Dialect::DeepSeekV3),
            ("deepseek_v31", Dialect::DeepSeekV3),
            ("deepseek_v32", Dialect::DeepseekDsml),
            ("deepseek_v4", Dialect::DeepseekDsml),
            ("deepseek_v41", Dialect::DeepseekV41),
            ("dots", Dialect::Dots),
            ("ernie45", Dialect::Ernie45),
            ("functiongemma", Dialect::FunctionGemma),
            ("gemma4", Dialect::Gemma4),
            ("gigachat3", Dialect::GigaChat3),
            ("glm45", Dialect::Glm),
            ("glm47", Dialect::Glm),
            ("granite", Dialect::Granite),
            ("granite-20b-fc", Dialect::Granite),
            ("granite4", Dialect::Hermes),
            ("hermes", Dialect::Hermes),
            ("hf", Dialect::Auto),
            ("hunyuan_a13b", Dialect::Hunyuan),
            ("hy_v3", Dialect::Hunyuan3),
            ("hy_v4", Dialect::Hunyuan),
            ("inkling", Dialect::Inkling),
            ("internlm", Dialect::InternLm),
            ("jamba", Dialect::Jamba),
            ("k2_horizon", Dialect::K2Horizon),
            ("kimi_k2", Dialect::KimiK2),
            ("kimi_k3", Dialect::KimiK3),
            ("lfm2", Dialect::Lfm2),
            ("ling3", Dialect::Glm),
            ("llama3_json", Dialect::Llama3Json),
            ("llama4_json", Dialect::Llama3Json),
            ("llama4_pythonic", Dialect::Pythonic),
            ("longcat", Dialect::LongCat),
            ("mimo", Dialect::MiMo),
            ("minicpm5", Dialect::MiniCpm5),
            ("minimax_m2", Dialect::MinimaxM2),
            ("minimax_m3", Dialect::MinimaxM3),
            ("mistral", Dialect::Mistral),
            ("muse", Dialect::MuseGlimmer),
            ("muse_glimmer", Dialect::MuseGlimmer),
            ("musespark1x", Dialect::MuseGlimmer),
            ("olmo3", Dialect::Olmo3),
            ("openai", Dialect::Harmony),
            ("phi4_mini_json", Dialect::Phi4Mini),
            ("plamo3", Dialect::Plamo3),
            ("poolside_v1", Dialect::Glm),
            ("pythonic", Dialect::Pythonic),
            ("qwen3_coder", Dialect::Qwen3Coder),
            ("qwen3_json", Dialect::Hermes),
            ("qwen3_xml", Dialect::Qwen3Coder),
            ("seed_oss", Dialect::SeedOss),
            ("step3", Dialect::Step3),
            ("step3p5", Dialect::Qwen3Coder),
            ("step5", Dialect::Qwen3Coder),
            ("xlam", Dialect::Xlam),
            // SGLang
            ("apertus2509", Dialect::Apertus),
            ("deepseekv3", Dialect::DeepSeekV3),
            ("deepseekv31", Dialect::DeepSeekV3),
            ("deepseekv32", Dialect::DeepseekDsml),
            ("deepseekv4", Dialect::DeepseekDsml),
            ("deepseekv41", Dialect::DeepseekV41),
            ("gigachat35", Dialect::GigaChat35),
            ("glm", Dialect::Glm),
            ("gpt-oss", Dialect::Harmony),
            ("hunyuan", Dialect::Hunyuan),
            ("interns1", Dialect::InternLm),
            ("iquest_q1", Dialect::IQuestQ1),
            ("llama3", Dialect::Llama3Json),
            ("minimax-m2", Dialect::MinimaxM2),
            ("minimax-m3", Dialect::MinimaxM3),
            ("nanbeige", Dialect::Qwen3Coder),
            ("qwen", Dialect::Hermes),
            ("qwen25", Dialect::Hermes),
            ("response_template", Dialect::Auto),
            ("spark25", Dialect::Glm),
            ("trinity", Dialect::Hermes),
        ];
        for &(name, want) in table {
            assert_eq!(Dialect::from_name(name), Some(want), "{name}");
        }
    }

    #[test]
    fn every_dialect_has_an_opener() {
        for &d in Dialect::ALL {
            assert!(!d.openers().is_empty(), "{}", d.name());
        }
        assert!(Dialect::Hermes.openers().contains(&&b"<tool_call>"[..]));
        assert!(Dialect::Hermes.in_auto() && !Dialect::Xlam.in_auto());
    }
}
