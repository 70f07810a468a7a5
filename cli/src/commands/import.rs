//! `sdsi import INPUT`: a schema template from a JSON Schema object or an
//! MCP tool, with every construct the template cannot express listed.

use std::path::PathBuf;

use sdsi::import::{Imported, from_json_schema, from_mcp_tool};
use sdsi::validate::ValidateOptions;
use serde::Serialize;
use serde_json::Value;

use crate::input;
use crate::output::{Entry, Format, Outcome, Status, entries};

/// What the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ImportFormat {
    /// An MCP tool when the object has `inputSchema`, else a JSON Schema.
    Auto,
    /// A JSON Schema object (draft 2020-12 or 07): the payload's, or a whole
    /// message's as `sdsi export --format json-schema` writes it.
    JsonSchema,
    /// An MCP tool `{"name", "inputSchema", ...}`.
    McpTool,
}

/// What `--help` says of the exit status.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  imported (warnings list what the template cannot express)
  1  JSON from which no usable template can be made
  2  unreadable or not JSON; a usage error";

/// Arguments of `import`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The JSON Schema or the MCP tool (JSON) to import; `-` reads standard
    /// input.
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,

    /// What the input is.
    #[arg(long, value_enum, default_value = "auto")]
    pub from: ImportFormat,

    /// The template's `schema_id` (default: the schema's `schema_id`
    /// const, its `title`, or the tool's name).
    #[arg(long)]
    pub schema_id: Option<String>,

    /// The template's `scenario` (default: the schema id).
    #[arg(long)]
    pub scenario: Option<String>,
}

/// The object `sdsi import` prints: `warnings` lists what the template
/// could not carry over.
#[derive(Serialize)]
struct ImportOutput<'a> {
    valid: bool,
    errors: Vec<Entry<'a>>,
    warnings: Vec<Entry<'a>>,
    template: Option<Value>,
}

/// Runs the command: exit 0 imported (warnings list what was left out), 1
/// JSON from which no usable template can be made, 2 unreadable or not JSON.
pub fn run(args: &Args, format: Format) -> Outcome {
    let max = ValidateOptions::default().limits.max_bytes;
    let parsed = input::read_capped(&args.input, max).and_then(|bytes| {
        serde_json::from_slice::<Value>(&bytes)
            .map_err(|e| Entry::tool("invalid_json", e.to_string()))
    });
    let value = match parsed {
        Ok(value) => value,
        Err(entry) => {
            let output = ImportOutput {
                valid: false,
                errors: vec![entry],
                warnings: Vec::new(),
                template: None,
            };
            return Outcome::new(Status::Unusable, &output, format);
        }
    };
    let is_tool = match args.from {
        ImportFormat::Auto => value.get("inputSchema").is_some(),
        ImportFormat::JsonSchema => false,
        ImportFormat::McpTool => true,
    };
    let title = value
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("imported");
    let schema_id = args.schema_id.as_deref().unwrap_or(title);
    let result = if is_tool {
        from_mcp_tool(&value)
    } else {
        from_json_schema(
            &value,
            schema_id,
            args.scenario.as_deref().unwrap_or(schema_id),
        )
    };
    match result {
        Ok(imported) => {
            let Imported {
                mut template,
                unsupported,
                ..
            } = imported;
            // Explicit names win over what the input says.
            if let Some(id) = &args.schema_id {
                template.schema_id.clone_from(id);
            }
            if let Some(scenario) = &args.scenario {
                template.scenario.clone_from(scenario);
            }
            let output = ImportOutput {
                valid: true,
                errors: Vec::new(),
                warnings: entries(&unsupported),
                template: serde_json::to_value(&template).ok(),
            };
            Outcome::new(Status::Valid, &output, format)
        }
        Err(error) => {
            let output = ImportOutput {
                valid: false,
                errors: entries(error.errors()),
                warnings: entries(error.warnings()),
                template: None,
            };
            Outcome::new(Status::Invalid, &output, format)
        }
    }
}
