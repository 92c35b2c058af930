//! The method table and JSON Schema of the whole protocol (feature `schema`): the single source the
//! TypeScript types of editors/vscode are generated from, so no editor mirrors a type by hand.
//!
//! Adding a client-to-server request: one row in [`crate::for_each_request!`]; a notification or a
//! server-to-client request: one line in [`method_table`]. The tests below fail when a `roo/*` constant of `methods` has no line here, or when a
//! public wire type lacks the `JsonSchema` derive.
//!
//! ## Decision: Generated editor types
//!
//! The protocol crate derives JSON Schema (feature `schema`); a script turns it into TypeScript,
//! and checks fail when a method is missing from the table or the generated file is stale. Types
//! are never mirrored by hand.

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value, json};

use crate::context::*;
use crate::files::*;
use crate::mentions::*;
use crate::methods;
use crate::workspace::*;
use crate::{access, context, files, fold, history, mentions, output, sync, workspace};

/// Who sends a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The editor (or agent) calls the sidecar.
    ClientToServer,
    /// The sidecar calls the editor (host services such as summarizing).
    ServerToClient,
}

/// One row of the method table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodEntry {
    /// The wire name, e.g. `roo/ignore/validateAccess`.
    pub method: &'static str,
    /// Who sends it.
    pub direction: Direction,
    /// Name of the params type in the schema's `definitions`.
    pub params: String,
    /// Name of the result type; `None` for a notification.
    pub result: Option<String>,
}

fn request<P: JsonSchema, R: JsonSchema>(
    generator: &mut SchemaGenerator,
    direction: Direction,
    method: &'static str,
) -> MethodEntry {
    generator.subschema_for::<P>();
    generator.subschema_for::<R>();
    MethodEntry {
        method,
        direction,
        params: P::schema_name().into_owned(),
        result: Some(R::schema_name().into_owned()),
    }
}

fn notification<P: JsonSchema>(
    generator: &mut SchemaGenerator,
    direction: Direction,
    method: &'static str,
) -> MethodEntry {
    generator.subschema_for::<P>();
    MethodEntry {
        method,
        direction,
        params: P::schema_name().into_owned(),
        result: None,
    }
}

/// Every custom method with its types; registers each type in `generator`. Client-to-server
/// requests come from the method table ([`crate::for_each_request!`]); notifications and
/// server-to-client requests are listed here. Standard LSP methods (`initialize`,
/// `textDocument/foldingRange`, ...) are not listed: editors type them already.
pub fn method_table(generator: &mut SchemaGenerator) -> Vec<MethodEntry> {
    use Direction::{ClientToServer as C2S, ServerToClient as S2C};
    let g = generator;
    macro_rules! client_requests {
        ($($(#[doc = $doc:literal])* $marker:ident = $name:ident $wire:literal, $params:ty => $result:ty, $lane:ident;)*) => {
            vec![$(request::<$params, $result>(g, C2S, methods::$name)),*]
        };
    }
    let mut table = crate::for_each_request!(client_requests);
    table.extend([
        request::<HostSummarizeParams, HostSummarizeResult>(g, S2C, methods::HOST_SUMMARIZE),
        request::<ResolveMentionParams, ResolveMentionResult>(
            g,
            S2C,
            methods::HOST_RESOLVE_MENTION,
        ),
        notification::<HostCancelSummarizeParams>(g, S2C, methods::HOST_CANCEL_SUMMARIZE),
        notification::<FileDidChangeParams>(g, S2C, methods::FILES_DID_CHANGE),
        notification::<Settings>(g, C2S, methods::SETTINGS_UPDATE),
        notification::<IgnoreDidReloadParams>(g, S2C, methods::IGNORE_DID_RELOAD),
        notification::<WorkspaceDidWatchParams>(g, S2C, methods::WORKSPACE_DID_WATCH),
    ]);
    table
}

/// Methods deliberately absent from the table (test-only switches).
pub const NOT_IN_TABLE: &[&str] = &[methods::DEBUG_PANIC, methods::DEBUG_HOLD];

/// The whole protocol as one JSON document: `methods` (the table) and `definitions` (a draft-07
/// JSON Schema per type, keyed by type name). Deterministic, so a stale generated file is a diff.
pub fn protocol_schema() -> Value {
    let mut generator = SchemaSettings::draft07().into_generator();
    let table = method_table(&mut generator);
    // `initializationOptions` has the same shape as `roo/settings/update`.
    generator.subschema_for::<Settings>();
    let methods: Vec<Value> = table
        .iter()
        .map(|entry| {
            json!({
                "method": entry.method,
                "direction": match entry.direction {
                    Direction::ClientToServer => "clientToServer",
                    Direction::ServerToClient => "serverToClient",
                },
                "kind": if entry.result.is_some() { "request" } else { "notification" },
                "params": entry.params,
                "result": entry.result,
            })
        })
        .collect();
    let definitions: Map<String, Value> = {
        let mut sorted: Vec<(String, Value)> =
            generator.take_definitions(true).into_iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        sorted.into_iter().collect()
    };
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "RooContextProtocol",
        "description": "Generated by `cargo run -p roo-context-protocol --features schema --bin roo-context-schema`; do not edit.",
        "methods": methods,
        "initializationOptions": "Settings",
        "definitions": definitions,
    })
}

/// The schema of one type, for tests and tools.
pub fn schema_of<T: JsonSchema>() -> Schema {
    SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<T>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{AccessResult, ValidateAccessParams};
    use std::path::Path;

    /// `roo/*` string constants declared in lib.rs (the `methods` module), in source order.
    fn declared_method_names() -> Vec<String> {
        include_str!("lib.rs")
            .lines()
            .filter_map(|line| {
                let line = line.trim();
                if !line.starts_with("pub const ") || !line.contains(": &str") {
                    return None;
                }
                let start = line.find('"')? + 1;
                let end = start + line[start..].find('"')?;
                Some(line[start..end].to_owned())
            })
            .filter(|name| name.starts_with("roo/"))
            .collect()
    }

    #[test]
    fn every_declared_roo_method_is_in_the_table() {
        let mut generator = SchemaSettings::draft07().into_generator();
        let table = method_table(&mut generator);
        let declared = declared_method_names();
        assert!(declared.len() >= 5, "parsed too few methods: {declared:?}");
        let missing: Vec<&String> = declared
            .iter()
            .filter(|name| !NOT_IN_TABLE.contains(&name.as_str()))
            .filter(|name| !table.iter().any(|entry| entry.method == name.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "add these methods to method_table in crates/protocol/src/schema.rs: {missing:?}"
        );
    }

    #[test]
    fn every_advertised_request_is_a_client_request_in_the_table() {
        let mut generator = SchemaSettings::draft07().into_generator();
        let table = method_table(&mut generator);
        for name in methods::ALL_REQUESTS {
            let entry = table.iter().find(|entry| entry.method == *name);
            let entry = entry.unwrap_or_else(|| panic!("{name} advertised but not in the table"));
            assert_eq!(entry.direction, Direction::ClientToServer, "{name}");
            assert!(entry.result.is_some(), "{name} is advertised as a request");
        }
    }

    #[test]
    fn every_public_wire_type_derives_json_schema() {
        let source_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut lacking = Vec::new();
        for entry in std::fs::read_dir(&source_dir).unwrap() {
            let path = entry.unwrap().path();
            let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.extension().is_none_or(|e| e != "rs") || file_name == "schema.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (index, line) in lines.iter().enumerate() {
                let trimmed = line.trim_start();
                if !(trimmed.starts_with("pub struct ") || trimmed.starts_with("pub enum ")) {
                    continue;
                }
                let attributes = lines[..index]
                    .iter()
                    .rev()
                    .take_while(|l| {
                        let l = l.trim_start();
                        l.starts_with("#[") || l.starts_with("///") || l.starts_with("//")
                    })
                    .any(|l| l.contains("JsonSchema"));
                let serialized = lines[..index]
                    .iter()
                    .rev()
                    .take_while(|l| {
                        let l = l.trim_start();
                        l.starts_with("#[") || l.starts_with("///") || l.starts_with("//")
                    })
                    .any(|l| l.contains("Serialize") || l.contains("Deserialize"));
                if serialized && !attributes {
                    lacking.push(format!("{file_name}: {trimmed}"));
                }
            }
        }
        assert!(
            lacking.is_empty(),
            "add #[cfg_attr(feature = \"schema\", derive(schemars::JsonSchema))] to: {lacking:#?}"
        );
    }

    #[test]
    fn table_types_are_all_defined() {
        let schema = protocol_schema();
        let definitions = schema["definitions"].as_object().unwrap();
        for method in schema["methods"].as_array().unwrap() {
            for key in ["params", "result"] {
                if let Some(name) = method[key].as_str() {
                    assert!(definitions.contains_key(name), "{name} of {method}");
                }
            }
        }
    }

    #[test]
    fn optional_fields_are_not_required_and_camel_case_on_the_wire() {
        let schema = serde_json::to_value(schema_of::<ValidateAccessParams>()).unwrap();
        assert_eq!(schema["required"], json!(["paths"]));
        let result = serde_json::to_value(schema_of::<AccessResult>()).unwrap();
        assert!(result["properties"].get("toolError").is_some(), "{result}");
    }
}
