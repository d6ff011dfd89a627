//! Every dialect writes its calls too: the forms each dialect's file holds, and
//! [`Dialect::render`] over them (`crate::render` has the types and the writer).

use super::*;
use crate::error::{Category, Error};
use crate::render::{layout, Form, Layout, Rendered, Style, Turn};

impl Dialect {
    /// Write `turn` as this dialect's model writes it, in the dialect's first form with
    /// strings escaped; see [`render_with`](Self::render_with) and [`crate::render`].
    ///
    /// ```
    /// use toolsift::render::{Call, Turn};
    /// use toolsift::Dialect;
    ///
    /// let turn = Turn::new().call(Call::new("get_weather", r#"{"city": "Paris"}"#));
    /// let out = Dialect::Hermes.render(&turn).unwrap();
    /// assert_eq!(
    ///     out.output,
    ///     "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
    /// );
    /// ```
    pub fn render(self, turn: &Turn) -> Result<Rendered, Error> {
        self.render_with(turn, &Style::new())
    }

    /// Write `turn` in `style`: a form by name, how strings are escaped, the dialect's
    /// own markup inside a value. Fails for what the form cannot carry (see
    /// [`Form`]), for arguments that are not a strict JSON object (unless given
    /// [`as written`](crate::render::Call::as_written)), for `auto`, and for a form the
    /// dialect does not have.
    pub fn render_with(self, turn: &Turn, style: &Style) -> Result<Rendered, Error> {
        let layouts = self.layouts();
        let layout = match style.form {
            None => layouts.first(),
            Some(name) => layouts.iter().find(|l| l.name == name),
        };
        let Some(layout) = layout else {
            let known: Vec<&str> = layouts.iter().map(|l| l.name).collect();
            return Err(Error::new(
                Category::Syntax,
                match style.form {
                    Some(name) => format!("{self} has no form {name:?} (forms: {known:?})"),
                    None => format!("{self} has no renderer"),
                },
            ));
        };
        layout::write(self.name(), layout, turn, style)
    }

    /// The forms this dialect's models write, the default first, each with what it
    /// carries. Empty for `auto`.
    pub fn forms(self) -> Vec<Form> {
        self.layouts()
            .iter()
            .map(|layout| Form {
                dialect: self,
                layout,
            })
            .collect()
    }

    /// Each dialect's forms, in its own file. A dialect added without them renders
    /// nothing, and `tests/render.rs` fails naming it.
    fn layouts(self) -> &'static [Layout] {
        match self {
            Dialect::Auto => &[],
            Dialect::Hermes => hermes::FORMS,
            Dialect::Qwen3Coder => qwen3_coder::FORMS,
            Dialect::Gemma4 => gemma4::FORMS,
            Dialect::SeedOss => seed_oss::FORMS,
            Dialect::Glm => glm::FORMS,
            Dialect::MinimaxM2 => minimax_m2::FORMS,
            Dialect::DeepseekDsml => deepseek_dsml::FORMS,
            Dialect::Hunyuan3 => hunyuan3::FORMS,
            Dialect::Harmony => harmony::FORMS,
            Dialect::MuseGlimmer => muse_glimmer::FORMS,
            Dialect::Mistral => mistral::FORMS,
            Dialect::Llama3Json => llama3_json::FORMS,
            Dialect::DeepSeekV3 => deepseek::FORMS,
            Dialect::KimiK2 => kimi_k2::FORMS,
            Dialect::Granite => granite::FORMS,
            Dialect::Jamba => jamba::FORMS,
            Dialect::Hunyuan => hunyuan::FORMS,
            Dialect::MinimaxM1 => minimax_m1::FORMS,
            Dialect::Xlam => xlam::FORMS,
            Dialect::InternLm => internlm::FORMS,
            Dialect::Phi4Mini => phi4_mini::FORMS,
            Dialect::FunctionaryV32 => functionary::V32_FORMS,
            Dialect::FunctionaryV31 => functionary::V31_FORMS,
            Dialect::CommandR => command_r::FORMS,
            Dialect::Inkling => inkling::FORMS,
            Dialect::FencedJson => heuristic_json::FENCED_FORMS,
            Dialect::BareJson => heuristic_json::BARE_FORMS,
            Dialect::Pythonic => pythonic::FORMS,
            Dialect::Olmo3 => olmo3::FORMS,
            Dialect::Lfm2 => lfm2::FORMS,
            Dialect::Gemma3 => gemma3::FORMS,
            Dialect::FunctionGemma => functiongemma::FORMS,
            Dialect::Ernie45 => ernie45::FORMS,
            Dialect::LongCat => longcat::FORMS,
            Dialect::GigaChat3 => gigachat3::FORMS,
            Dialect::Step3 => step3::FORMS,
            Dialect::Apertus => apertus::FORMS,
            Dialect::MiniCpm5 => minicpm5::FORMS,
            Dialect::KimiK3 => kimi_k3::FORMS,
            Dialect::MinimaxM3 => minimax_m3::FORMS,
            Dialect::Dots => dots::FORMS,
            Dialect::DeepseekV41 => deepseek_v41::FORMS,
            Dialect::GigaChat35 => gigachat35::FORMS,
            Dialect::IQuestQ1 => iquest_q1::FORMS,
            Dialect::MiMo => mimo::FORMS,
            Dialect::Plamo3 => plamo3::FORMS,
            Dialect::K2Horizon => k2_horizon::FORMS,
            Dialect::Beam => beam::FORMS,
        }
    }
}
