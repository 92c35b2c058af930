; TypeScript definitions (also the base of tsx.scm).
; Convention: @definition.<kind> on the whole definition node, @name on its name.
; Only definitions are captured; see crates/fold/README.md for what differs from the original.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function

(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class

(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum

(internal_module name: (_) @name) @definition.module
(module name: (_) @name) @definition.module

(method_definition name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method

; class fields holding a function are methods; other fields are fields
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method
(public_field_definition name: (_) @name) @definition.field

; const f = () => {...}, let f = function () {...}, var f = ...
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

; exports.f = function () {...}
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_exports
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)])
  (#eq? @_exports "exports")) @definition.function

; describe("...", () => {...}), it(...), test(...)
(call_expression
  function: (identifier) @_test_function
  arguments: (arguments
    .
    [(string) (template_string)] @name
    [(arrow_function) (function_expression)])
  (#any-of? @_test_function "describe" "it" "test")) @definition.test
