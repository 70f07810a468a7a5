//! `sdsi export --format FORMAT --schema TEMPLATE`: a schema template
//! exported for another tool (JSON Schema, MCP, constrained decoding, A2A,
//! a prompt).

use sdsi::Issue;
use sdsi::a2a::{AgentExtension, FieldDefinition, fields_from_template};
use sdsi::export::OrderedJson;
use sdsi::mcp::McpVersion;
use sdsi::validate::ValidateOptions;
use serde::Serialize;

use crate::input;
use crate::output::{Entry, Format, Outcome, Status, entries};
use crate::schema_arg::SchemaArg;
use crate::template::{self, Rejected};

/// What to export the template as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// JSON Schema 2020-12 of the message `{"schema_id", "payload"}`.
    JsonSchema,
    /// An MCP tool's `inputSchema` (the payload's JSON Schema).
    McpInput,
    /// An MCP elicitation's `requestedSchema` (flat, primitive properties).
    McpElicitation,
    /// What an MCP server sends to ask the user for the payload (needs
    /// `--message`): an `InputRequiredResult` under 2026-07-28, an
    /// `elicitation/create` request under 2025-11-25.
    McpElicitationRequest,
    /// A strict structured-output schema for constrained decoding.
    Strict,
    /// A2A input field definitions (issue #813).
    A2aFields,
    /// An A2A AgentCard extension entry carrying the template.
    A2aExtension,
    /// A compact prompt rendering for in-context learning (a JSON string).
    Prompt,
}

/// Arguments of `export`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The format to export to.
    #[arg(long, short = 'f', value_enum, value_name = "FORMAT")]
    pub format: ExportFormat,

    /// The template: `--schema TEMPLATE`.
    #[command(flatten)]
    pub template: SchemaArg,

    /// The MCP protocol revision of an `mcp-*` format: 2026-07-28 (the
    /// default) or 2025-11-25.
    #[arg(long, value_name = "REVISION", value_parser = parse_mcp_version)]
    pub mcp_version: Option<McpVersion>,

    /// The text shown to the user with an `mcp-elicitation-request`.
    #[arg(long, value_name = "TEXT")]
    pub message: Option<String>,
}

fn parse_mcp_version(text: &str) -> Result<McpVersion, String> {
    text.parse()
        .map_err(|e: sdsi::mcp::UnknownMcpVersion| e.to_string())
}

/// Why the flags given cannot go together, if they cannot: each applies to
/// some formats only, and no flag is silently ignored.
pub fn misused(args: &Args) -> Option<String> {
    let format = args.format;
    let mcp = matches!(
        format,
        ExportFormat::McpInput | ExportFormat::McpElicitationRequest
    );
    if args.mcp_version.is_some() && !mcp {
        return Some(
            "--mcp-version applies to --format mcp-input and mcp-elicitation-request only"
                .to_owned(),
        );
    }
    match (format == ExportFormat::McpElicitationRequest, &args.message) {
        (true, None) => Some("--format mcp-elicitation-request needs --message TEXT".to_owned()),
        (false, Some(_)) => {
            Some("--message applies to --format mcp-elicitation-request only".to_owned())
        }
        _ => None,
    }
}

/// What `--help` says of the exit status.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  exported (warnings list what the format could not carry)
  1  well-formed JSON that breaks the template's rules
  2  unreadable, larger than 4 MiB, or not JSON; a usage error";

/// The object `sdsi export` prints.
#[derive(Debug, Serialize)]
struct ExportOutput<'a> {
    valid: bool,
    errors: Vec<Entry<'a>>,
    warnings: Vec<Entry<'a>>,
    export: Option<Exported>,
}

/// An export, written straight from what the library returns (never
/// through a `Value`, whose maps serde_json sorts by default): a template's
/// keys in the template's order, a struct's fields in theirs.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Exported {
    Schema(OrderedJson),
    Fields(Vec<FieldDefinition>),
    Extension(AgentExtension),
    Prompt(String),
}

/// Runs the command: exit 0 exported (warnings list what could not be
/// expressed, and the template's own warnings), 1 well-formed JSON that
/// breaks the template rules, 2 unreadable, too large or not JSON.
pub fn run(args: &Args, format: Format) -> Outcome {
    let options = ValidateOptions::default();
    let read = match args.template.path() {
        Some(path) => input::read_capped(path, options.limits.max_bytes),
        None => Err(Entry::unreadable(
            "the template",
            "none given: use --schema",
        )),
    };
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(entry) => {
            let output = ExportOutput {
                valid: false,
                errors: vec![entry],
                warnings: Vec::new(),
                export: None,
            };
            return Outcome::new(Status::Unusable, &output, format);
        }
    };
    let usable = match template::load(&bytes, options) {
        Ok(usable) => usable,
        Err(rejected) => return rejected_outcome(&rejected, format),
    };
    let schema = &usable.schema;
    let version = args.mcp_version.unwrap_or_default();
    let mut warnings: Vec<Issue> = usable.warnings.clone();
    let export = match args.format {
        ExportFormat::JsonSchema => Exported::Schema(schema.json_schema()),
        ExportFormat::McpInput => Exported::Schema(schema.mcp_input_schema_for(version)),
        ExportFormat::McpElicitationRequest => {
            let message = args.message.as_deref().unwrap_or_default();
            let export = schema.mcp_elicitation_request(message, version);
            warnings.extend(export.warnings);
            Exported::Schema(export.schema)
        }
        ExportFormat::McpElicitation => {
            let export = schema.mcp_elicitation_schema();
            warnings.extend(export.warnings);
            Exported::Schema(export.schema)
        }
        ExportFormat::Strict => {
            let export = schema.strict_schema();
            warnings.extend(export.warnings);
            Exported::Schema(export.schema)
        }
        ExportFormat::A2aFields => Exported::Fields(fields_from_template(schema.template())),
        ExportFormat::A2aExtension => Exported::Extension(AgentExtension::for_templates(
            std::slice::from_ref(schema.template()),
            false,
        )),
        ExportFormat::Prompt => Exported::Prompt(schema.prompt()),
    };
    // Document order: `/keys/2` before `/keys/10` (as strings they would not be).
    warnings.sort_by(|a, b| document_order(a.path(), b.path()));
    let output = ExportOutput {
        valid: true,
        errors: Vec::new(),
        warnings: entries(&warnings),
        export: Some(export),
    };
    Outcome::new(Status::Valid, &output, format)
}

fn rejected_outcome(rejected: &Rejected, format: Format) -> Outcome {
    let status = if rejected.is_unparseable() {
        Status::Unusable
    } else {
        Status::Invalid
    };
    let output = ExportOutput {
        valid: false,
        errors: rejected.errors(),
        warnings: rejected.warnings(),
        export: None,
    };
    Outcome::new(status, &output, format)
}

/// Compares two JSON Pointers in the order their targets appear in the
/// document: segment by segment, array indexes as numbers.
fn document_order(a: &str, b: &str) -> std::cmp::Ordering {
    let key = |segment: &str| (segment.parse::<u64>().ok(), segment.to_owned());
    let (mut a, mut b) = (a.split('/'), b.split('/'));
    loop {
        match (a.next(), b.next()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) => {
                let order = match (key(x), key(y)) {
                    ((Some(m), _), (Some(n), _)) => m.cmp(&n),
                    ((_, x), (_, y)) => x.cmp(&y),
                };
                if order.is_ne() {
                    return order;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::document_order;

    #[test]
    fn pointers_sort_in_document_order() {
        let mut paths = vec![
            "/keys/10",
            "/keys/2/default_value",
            "",
            "/keys/2",
            "/keys/1",
        ];
        paths.sort_by(|a, b| document_order(a, b));
        assert_eq!(
            paths,
            [
                "",
                "/keys/1",
                "/keys/2",
                "/keys/2/default_value",
                "/keys/10"
            ]
        );
    }
}
