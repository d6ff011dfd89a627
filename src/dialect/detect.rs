//! Choosing a dialect from what a server knows about the model: its name or its chat
//! template. Each answer comes with the evidence it rests on, so a caller can log why.
//!
//! Both tables are ordered most specific first: `qwen3-coder` before `qwen3`, the
//! `<function=` body before the bare `<tool_call>` wrapper it shares with Hermes.

use super::Dialect;
use std::fmt;

/// What a detection rested on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    /// Where the pattern was found.
    pub source: Source,
    /// The pattern that matched: a model name fragment or a template marker.
    pub pattern: &'static str,
}

/// Where detection evidence was found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The model name (`Qwen/Qwen3-Coder-30B-A3B-Instruct`).
    ModelName,
    /// The chat template text.
    ChatTemplate,
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.source {
            Source::ModelName => write!(f, "model name contains {:?}", self.pattern),
            Source::ChatTemplate => write!(f, "chat template contains {:?}", self.pattern),
        }
    }
}

/// Model name fragments (lowercase, `_` and spaces read as `-`), most specific first.
/// `toolsift dialects` prints each dialect's, and the proxy's `--dialect model` reads them.
const MODEL_NAMES: &[(&str, Dialect)] = &[
    // A fine-tune names its own format before its base model's (Hermes-3-Llama-3.1).
    ("hermes", Dialect::Hermes),
    ("apertus", Dialect::Apertus),
    ("gigachat3.5", Dialect::GigaChat35),
    ("gigachat-3.5", Dialect::GigaChat35),
    ("gigachat3-", Dialect::GigaChat3),
    ("gigachat3.1", Dialect::GigaChat3),
    ("longcat", Dialect::LongCat),
    ("kimi-k3", Dialect::KimiK3),
    ("kimi-k2", Dialect::KimiK2),
    ("kimi-dev", Dialect::KimiK2),
    ("k2-horizon", Dialect::K2Horizon),
    ("minicpm5", Dialect::MiniCpm5),
    ("minicpm-5", Dialect::MiniCpm5),
    ("minimax-m3", Dialect::MinimaxM3),
    ("minimax-m1", Dialect::MinimaxM1),
    ("step-3.5", Dialect::Qwen3Coder),
    ("step3.5", Dialect::Qwen3Coder),
    ("step-5", Dialect::Qwen3Coder),
    ("step5", Dialect::Qwen3Coder),
    ("step3", Dialect::Step3),
    ("ernie-4.5", Dialect::Ernie45),
    ("hy3-", Dialect::Hunyuan3),
    ("hy-v4", Dialect::Hunyuan),
    ("hy4-", Dialect::Hunyuan),
    ("hunyuan-a13b", Dialect::Hunyuan),
    ("mimo", Dialect::MiMo),
    ("nanbeige", Dialect::Qwen3Coder),
    ("qwen3-coder", Dialect::Qwen3Coder),
    ("qwen3.5", Dialect::Qwen3Coder),
    ("qwen3.6", Dialect::Qwen3Coder),
    ("nemotron-3", Dialect::Qwen3Coder),
    ("nemotron3", Dialect::Qwen3Coder),
    ("seed-oss", Dialect::SeedOss),
    ("glm-4.5", Dialect::Glm),
    ("glm-4.6", Dialect::Glm),
    ("glm-4.7", Dialect::Glm),
    ("glm-5", Dialect::Glm),
    ("glm4.5", Dialect::Glm),
    ("glm4.6", Dialect::Glm),
    ("glm4.7", Dialect::Glm),
    ("glm5", Dialect::Glm),
    ("laguna", Dialect::Glm),
    ("ling-3", Dialect::Glm),
    ("ling3", Dialect::Glm),
    ("spark2.5", Dialect::Glm),
    ("iquest", Dialect::IQuestQ1),
    ("minimax-m2", Dialect::MinimaxM2),
    ("deepseek-v4.1", Dialect::DeepseekV41),
    ("deepseek-v3.2", Dialect::DeepseekDsml),
    ("deepseek-v4", Dialect::DeepseekDsml),
    ("deepseek-v3", Dialect::DeepSeekV3),
    ("deepseek-r1", Dialect::DeepSeekV3),
    ("dots.llm", Dialect::Dots),
    ("dots-llm", Dialect::Dots),
    ("plamo-3", Dialect::Plamo3),
    ("plamo3", Dialect::Plamo3),
    ("hunyuan-3", Dialect::Hunyuan3),
    ("hunyuan3", Dialect::Hunyuan3),
    ("functiongemma", Dialect::FunctionGemma),
    ("gemma-4", Dialect::Gemma4),
    ("gemma4", Dialect::Gemma4),
    ("gemma-3", Dialect::Gemma3),
    ("gemma3", Dialect::Gemma3),
    ("granite-20b-functioncalling", Dialect::Granite),
    ("granite-4", Dialect::Hermes),
    ("granite4", Dialect::Hermes),
    ("granite", Dialect::Granite),
    ("phi-4-mini", Dialect::Phi4Mini),
    ("phi4-mini", Dialect::Phi4Mini),
    ("command-r", Dialect::CommandR),
    ("command-a", Dialect::CommandR),
    ("c4ai-command", Dialect::CommandR),
    ("jamba", Dialect::Jamba),
    ("internlm", Dialect::InternLm),
    ("intern-s1", Dialect::InternLm),
    ("xlam", Dialect::Xlam),
    ("functionary-v3.1", Dialect::FunctionaryV31),
    ("functionary", Dialect::FunctionaryV32),
    ("olmo-3", Dialect::Olmo3),
    ("lfm2", Dialect::Lfm2),
    ("gpt-oss", Dialect::Harmony),
    ("muse-spark", Dialect::MuseGlimmer),
    ("muse-glimmer", Dialect::MuseGlimmer),
    ("inkling", Dialect::Inkling),
    ("magistral", Dialect::Mistral),
    ("devstral", Dialect::Mistral),
    ("ministral", Dialect::Mistral),
    ("codestral", Dialect::Mistral),
    ("mistral", Dialect::Mistral),
    ("llama-4", Dialect::Llama3Json),
    ("llama4", Dialect::Llama3Json),
    ("llama-3", Dialect::Llama3Json),
    ("llama3", Dialect::Llama3Json),
    ("qwen3", Dialect::Hermes),
    ("qwen2.5", Dialect::Hermes),
    ("qwq", Dialect::Hermes),
    ("trinity", Dialect::Hermes),
];

/// Chat template markers, most specific first.
const TEMPLATE_MARKERS: &[(&str, Dialect)] = &[
    ("<｜GCML｜", Dialect::GigaChat35),
    ("<dots_function_call>", Dialect::Dots),
    ("<iquest_tool_call>", Dialect::IQuestQ1),
    ("<ifm|tool_call>", Dialect::K2Horizon),
    ("<|plamo:begin_tool", Dialect::Plamo3),
    ("｜DSML｜ ", Dialect::DeepseekV41),
    ("<|tools_prefix|>", Dialect::Apertus),
    ("<longcat_tool_call>", Dialect::LongCat),
    ("<|function_call|>", Dialect::GigaChat3),
    ("function call<|role_sep|>", Dialect::GigaChat3),
    ("<steptml:invoke", Dialect::Step3),
    ("<|open|>", Dialect::KimiK3),
    ("]<]minimax[>[", Dialect::MinimaxM3),
    ("<function name=", Dialect::MiniCpm5),
    ("<tool_sep>", Dialect::Hunyuan3),
    ("<seed:tool_call>", Dialect::SeedOss),
    ("<minimax:tool_call>", Dialect::MinimaxM2),
    ("｜DSML｜", Dialect::DeepseekDsml),
    ("<tool_call:opensource>", Dialect::Hunyuan3),
    ("<tool_sep:opensource>", Dialect::Hunyuan3),
    ("<arg_key>", Dialect::Glm),
    ("<function=", Dialect::Qwen3Coder),
    ("<parameter=", Dialect::Qwen3Coder),
    ("<|tool_call>", Dialect::Gemma4),
    ("<tool_call>", Dialect::Hermes),
];

impl Dialect {
    /// The dialect a model name implies (`zai-org/GLM-4.6-FP8` -> [`Dialect::Glm`]),
    /// with the name fragment that decided it; `None` when no fragment is known.
    pub fn from_model_name(name: &str) -> Option<(Dialect, Evidence)> {
        let base = name.rsplit('/').next().unwrap_or(name);
        let norm: String = base
            .chars()
            .map(|c| match c {
                '_' | ' ' => '-',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        MODEL_NAMES
            .iter()
            .find(|(pattern, _)| norm.contains(pattern))
            .map(|&(pattern, d)| {
                let source = Source::ModelName;
                (d, Evidence { source, pattern })
            })
    }

    /// The model name fragments that select this dialect (see
    /// [`Dialect::from_model_name`]), in the order they are tried.
    pub fn model_names(self) -> Vec<&'static str> {
        MODEL_NAMES
            .iter()
            .filter(|(_, d)| *d == self)
            .map(|(pattern, _)| *pattern)
            .collect()
    }

    /// The dialect a chat template writes tool calls in, with the marker that decided
    /// it; `None` when the template shows no known marker.
    pub fn from_chat_template(template: &str) -> Option<(Dialect, Evidence)> {
        TEMPLATE_MARKERS
            .iter()
            .find(|(marker, _)| template.contains(marker))
            .map(|&(pattern, d)| {
                let source = Source::ChatTemplate;
                (d, Evidence { source, pattern })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names() {
        let table: &[(&str, Option<(Dialect, &str)>)] = &[
            (
                "Qwen/Qwen3-Coder-30B-A3B-Instruct",
                Some((Dialect::Qwen3Coder, "qwen3-coder")),
            ),
            ("Qwen/Qwen3-8B", Some((Dialect::Hermes, "qwen3"))),
            (
                "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B",
                Some((Dialect::Qwen3Coder, "nemotron-3")),
            ),
            (
                "ByteDance-Seed/Seed-OSS-36B-Instruct",
                Some((Dialect::SeedOss, "seed-oss")),
            ),
            ("zai-org/GLM-4.6-FP8", Some((Dialect::Glm, "glm-4.6"))),
            ("zai-org/GLM-4.7-Flash", Some((Dialect::Glm, "glm-4.7"))),
            ("mlx-community/glm_5_4bit", Some((Dialect::Glm, "glm-5"))),
            ("poolside/Laguna-XS", Some((Dialect::Glm, "laguna"))),
            (
                "MiniMaxAI/MiniMax-M2.5",
                Some((Dialect::MinimaxM2, "minimax-m2")),
            ),
            (
                "deepseek-ai/DeepSeek-V3.2-Exp",
                Some((Dialect::DeepseekDsml, "deepseek-v3.2")),
            ),
            (
                "deepseek-ai/DeepSeek-V4-Flash",
                Some((Dialect::DeepseekDsml, "deepseek-v4")),
            ),
            ("tencent/Hunyuan-3", Some((Dialect::Hunyuan3, "hunyuan-3"))),
            ("google/gemma-4-31b-it", Some((Dialect::Gemma4, "gemma-4"))),
            (
                "NousResearch/Hermes-3-Llama-3.1-8B",
                Some((Dialect::Hermes, "hermes")),
            ),
            (
                "swiss-ai/Apertus-70B-Instruct-2509",
                Some((Dialect::Apertus, "apertus")),
            ),
            (
                "ai-sage/GigaChat3-10B-A1.8B",
                Some((Dialect::GigaChat3, "gigachat3-")),
            ),
            (
                "ai-sage/GigaChat3.1-10B-A1.8B",
                Some((Dialect::GigaChat3, "gigachat3.1")),
            ),
            (
                "ai-sage/GigaChat3.5-Preview",
                Some((Dialect::GigaChat35, "gigachat3.5")),
            ),
            (
                "meituan-longcat/LongCat-Flash-Chat",
                Some((Dialect::LongCat, "longcat")),
            ),
            ("moonshotai/Kimi-K3", Some((Dialect::KimiK3, "kimi-k3"))),
            ("openbmb/MiniCPM5-1B", Some((Dialect::MiniCpm5, "minicpm5"))),
            (
                "MiniMaxAI/MiniMax-M3",
                Some((Dialect::MinimaxM3, "minimax-m3")),
            ),
            ("stepfun-ai/step3", Some((Dialect::Step3, "step3"))),
            (
                "stepfun-ai/Step-3.5-Flash",
                Some((Dialect::Qwen3Coder, "step-3.5")),
            ),
            (
                "baidu/ERNIE-4.5-21B-A3B-Thinking",
                Some((Dialect::Ernie45, "ernie-4.5")),
            ),
            ("tencent/Hy3-preview", Some((Dialect::Hunyuan3, "hy3-"))),
            (
                "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
                Some((Dialect::Mistral, "mistral")),
            ),
            (
                "mistralai/Devstral-Small-2507",
                Some((Dialect::Mistral, "devstral")),
            ),
            (
                "meta-llama/Llama-3.3-70B-Instruct",
                Some((Dialect::Llama3Json, "llama-3")),
            ),
            (
                "meta-llama/Llama-4-Scout-17B-16E-Instruct",
                Some((Dialect::Llama3Json, "llama-4")),
            ),
            (
                "deepseek-ai/DeepSeek-R1-0528",
                Some((Dialect::DeepSeekV3, "deepseek-r1")),
            ),
            (
                "deepseek-ai/DeepSeek-V3.1-Terminus",
                Some((Dialect::DeepSeekV3, "deepseek-v3")),
            ),
            (
                "deepseek-ai/DeepSeek-V4.1",
                Some((Dialect::DeepseekV41, "deepseek-v4.1")),
            ),
            (
                "moonshotai/Kimi-K2-Instruct-0905",
                Some((Dialect::KimiK2, "kimi-k2")),
            ),
            (
                "MiniMaxAI/MiniMax-M1-80k",
                Some((Dialect::MinimaxM1, "minimax-m1")),
            ),
            ("google/gemma-3-27b-it", Some((Dialect::Gemma3, "gemma-3"))),
            (
                "google/functiongemma-270m-it",
                Some((Dialect::FunctionGemma, "functiongemma")),
            ),
            (
                "ibm-granite/granite-3.3-8b-instruct",
                Some((Dialect::Granite, "granite")),
            ),
            (
                "ibm-granite/granite-4.0-h-small",
                Some((Dialect::Hermes, "granite-4")),
            ),
            (
                "microsoft/Phi-4-mini-instruct",
                Some((Dialect::Phi4Mini, "phi-4-mini")),
            ),
            (
                "CohereLabs/c4ai-command-r7b-12-2024",
                Some((Dialect::CommandR, "command-r")),
            ),
            (
                "CohereLabs/command-a-reasoning-08-2025",
                Some((Dialect::CommandR, "command-a")),
            ),
            (
                "tencent/Hunyuan-A13B-Instruct",
                Some((Dialect::Hunyuan, "hunyuan-a13b")),
            ),
            ("openai/gpt-oss-20b", Some((Dialect::Harmony, "gpt-oss"))),
            ("XiaomiMiMo/MiMo-V2-Flash", Some((Dialect::MiMo, "mimo"))),
            ("pfnet/plamo-3-nict-31b", Some((Dialect::Plamo3, "plamo-3"))),
            (
                "rednote-hilab/dots.llm1.inst",
                Some((Dialect::Dots, "dots.llm")),
            ),
            ("gpt2", None),
            ("", None),
        ];
        for &(name, want) in table {
            let got = Dialect::from_model_name(name).map(|(d, e)| {
                assert_eq!(e.source, Source::ModelName);
                (d, e.pattern)
            });
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn chat_templates() {
        let table: &[(&str, Option<(Dialect, &str)>)] = &[
            (
                "{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}",
                Some((Dialect::Qwen3Coder, "<function=")),
            ),
            (
                "{{ '<tool_call>' + tc.name }}{% for k, v in args %}<arg_key>{{ k }}</arg_key>",
                Some((Dialect::Glm, "<arg_key>")),
            ),
            (
                "<seed:tool_call>\\n<function={{ name }}>",
                Some((Dialect::SeedOss, "<seed:tool_call>")),
            ),
            (
                "<minimax:tool_call>\\n<invoke name=\"{{ name }}\">",
                Some((Dialect::MinimaxM2, "<minimax:tool_call>")),
            ),
            (
                "<｜DSML｜function_calls>\\n<｜DSML｜invoke name=",
                Some((Dialect::DeepseekDsml, "｜DSML｜")),
            ),
            (
                "<tool_calls:opensource><tool_call:opensource>{{ name }}",
                Some((Dialect::Hunyuan3, "<tool_call:opensource>")),
            ),
            (
                "<|tool_call>call:{{ name }}",
                Some((Dialect::Gemma4, "<|tool_call>")),
            ),
            (
                "<tool_call>\\n{\"name\": {{ name | tojson }}}",
                Some((Dialect::Hermes, "<tool_call>")),
            ),
            (
                "{{ '<|tools_prefix|>' + calls | tojson + '<|tools_suffix|>' }}",
                Some((Dialect::Apertus, "<|tools_prefix|>")),
            ),
            (
                "<longcat_tool_call>\\n{{ call | tojson }}",
                Some((Dialect::LongCat, "<longcat_tool_call>")),
            ),
            (
                "{{ 'function call<|role_sep|>\\n' + call | tojson }}",
                Some((Dialect::GigaChat3, "function call<|role_sep|>")),
            ),
            (
                "<steptml:invoke name=\"{{ name }}\">",
                Some((Dialect::Step3, "<steptml:invoke")),
            ),
            (
                "{%- macro open(tag) -%}<|open|>{{ tag }}<|sep|>{%- endmacro -%}",
                Some((Dialect::KimiK3, "<|open|>")),
            ),
            (
                "]<]minimax[>[<invoke name=\"{{ name }}\">",
                Some((Dialect::MinimaxM3, "]<]minimax[>[")),
            ),
            (
                "<tool_calls><tool_call>{{ name }}<tool_sep><arg_key>",
                Some((Dialect::Hunyuan3, "<tool_sep>")),
            ),
            (
                "{{- '<｜GCML｜tool_calls>\\n' -}}",
                Some((Dialect::GigaChat35, "<｜GCML｜")),
            ),
            (
                "<｜DSML｜ invoke name=\"{{ name }}\">",
                Some((Dialect::DeepseekV41, "｜DSML｜ ")),
            ),
            ("{% for m in messages %}{{ m.content }}{% endfor %}", None),
        ];
        for &(template, want) in table {
            let got = Dialect::from_chat_template(template).map(|(d, e)| {
                assert_eq!(e.source, Source::ChatTemplate);
                (d, e.pattern)
            });
            assert_eq!(got, want, "{template}");
        }
    }

    #[test]
    fn evidence_says_where_and_what() {
        let (_, e) = Dialect::from_model_name("zai-org/GLM-4.6").unwrap();
        assert_eq!(e.to_string(), "model name contains \"glm-4.6\"");
        let (_, e) = Dialect::from_chat_template("x<arg_key>y").unwrap();
        assert_eq!(e.to_string(), "chat template contains \"<arg_key>\"");
    }
}
