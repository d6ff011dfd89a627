//! What a dialect is called and how its calls open, for listings (`toolsift dialects`)
//! and for suggesting a name when one is not known.

use super::{auto_specs, Dialect};

impl Dialect {
    /// The other names [`Dialect::from_name`] accepts for this dialect, vLLM's tool-parser
    /// names among them (`-` and `_` are the same in a name, and case does not matter).
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Dialect::Auto => &[],
            Dialect::Hermes => &["qwen", "qwen25", "qwen2_5", "qwen3"],
            Dialect::Qwen3Coder => &[
                "qwen3coder",
                "qwen3_xml",
                "nemotron",
                "nemotron3",
                "nemotron_3",
                "nemotron_nano",
                "nemotron3_nano",
                "step3p5",
            ],
            Dialect::Gemma4 => &["gemma_4"],
            Dialect::SeedOss => &["seed", "seedoss"],
            Dialect::Glm => &[
                "glm4_moe", "glm46", "glm47", "glm5", "glm", "laguna", "poolside",
            ],
            Dialect::MinimaxM2 => &["minimax2", "minimax_m2_5"],
            Dialect::DeepseekDsml => &[
                "deepseekv32",
                "deepseek_v3_2",
                "deepseek_v4",
                "deepseekv4",
                "dsml",
            ],
            Dialect::Hunyuan3 => &["hunyuan_3", "hy3", "hy_v3", "hyv3", "hy3_preview"],
            Dialect::Harmony => &["gpt_oss", "gptoss", "openai"],
            Dialect::MuseGlimmer => &["glimmer", "muse"],
            Dialect::Mistral => &["mistral_nemo", "magistral", "ministral", "devstral"],
            Dialect::Llama3Json => &[
                "llama3",
                "llama",
                "llama4_json",
                "llama3_1",
                "llama3_2",
                "llama3_3",
            ],
            Dialect::DeepSeekV3 => &[
                "deepseekv3",
                "deepseek_r1",
                "deepseekr1",
                "deepseek_v31",
                "deepseekv31",
                "deepseek",
            ],
            Dialect::KimiK2 => &["kimik2", "kimi"],
            Dialect::Granite => &["granite3", "granite_20b_fc", "granite_20b"],
            Dialect::Jamba => &[],
            Dialect::Hunyuan => &["hunyuan_a13b"],
            Dialect::MinimaxM1 => &["minimax"],
            Dialect::Xlam => &[],
            Dialect::InternLm => &["internlm2", "internlm2_5", "interns1"],
            Dialect::Phi4Mini => &["phi4_mini_json", "phi4", "firefunction"],
            Dialect::FunctionaryV32 => &["functionary", "functionary_v3_2"],
            Dialect::FunctionaryV31 => &["functionary_v3_1"],
            Dialect::CommandR => &["command_r7b", "command_a", "cohere", "cohere_command3"],
            Dialect::Inkling => &[],
            Dialect::FencedJson => &["fenced"],
            Dialect::BareJson => &["json"],
            Dialect::Pythonic => &["llama4_pythonic", "llama3_pythonic", "llama32_pythonic"],
            Dialect::Olmo3 => &["olmo_3", "olmo"],
            Dialect::Lfm2 => &["lfm2_5", "lfm", "liquid"],
            Dialect::Gemma3 => &["gemma_3", "tool_code"],
            Dialect::FunctionGemma => &["function_gemma"],
            Dialect::Ernie45 => &["ernie4_5", "ernie", "ernie_x1"],
            Dialect::LongCat => &["longcat_flash"],
            Dialect::GigaChat3 => &["gigachat3_1", "gigachat"],
            Dialect::Step3 => &["steptml"],
            Dialect::MinimaxM3 => &["minimax3"],
            Dialect::Apertus => &["apertus2509"],
            Dialect::MiniCpm5 => &["minicpm5xml", "minicpm"],
            Dialect::KimiK3 => &["kimik3", "xtml"],
        }
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
                assert_eq!(Dialect::from_name(alias), Some(d), "alias {alias}");
                assert!(seen.insert(alias), "{alias} listed twice");
            }
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
