; JavaScript and JSX definitions.
; Convention: @definition.<kind> on the whole definition node, @name on its name.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

(class_declaration name: (identifier) @name) @definition.class
(class name: (identifier) @name) @definition.class

(method_definition name: (_) @name) @definition.method

(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method
(field_definition property: (_) @name) @definition.field

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

; higher-order components and callbacks: const Button = memo((props) => ...),
; forwardRef(...), observer(...), withRouter(...), useCallback(...). Other calls holding a function
; (useMemo, Array.from, setTimeout) return values, not functions.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression
      function: [(identifier) (member_expression)] @_wrapper
      arguments: (arguments [(arrow_function) (function_expression)])))
  (#match? @_wrapper "^((React|react)[.])?(memo|forwardRef|observer|lazy|useCallback|useEvent|with[A-Z][A-Za-z0-9]*|connect)$")
  ) @definition.function

; exports.f = function () {...}, module.exports.f = ...
(expression_statement
  (assignment_expression
    left: (member_expression
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)])) @definition.function

; describe("...", () => {...}), it(...), test(...), also .only/.skip/.each(...)(...) forms
(call_expression
  function: (identifier) @_test_function
  arguments: (arguments
    .
    [(string) (template_string) (identifier) (member_expression)] @name
    [(arrow_function) (function_expression)])
  (#any-of? @_test_function "describe" "it" "test" "suite")) @definition.test
(call_expression
  function: (member_expression object: (identifier) @_test_function)
  arguments: (arguments
    .
    [(string) (template_string) (identifier) (member_expression)] @name
    [(arrow_function) (function_expression)])
  (#any-of? @_test_function "describe" "it" "test" "suite")) @definition.test
(call_expression
  function: (call_expression
    function: (member_expression object: (identifier) @_test_function))
  arguments: (arguments
    .
    [(string) (template_string) (identifier) (member_expression)] @name
    [(arrow_function) (function_expression)])
  (#any-of? @_test_function "describe" "it" "test" "suite")) @definition.test

; Named data at the top level: const Schema = z.object({...}), export const TABLE = [...],
; const useStore = create(...), const Impl = class {...}. The kind says data, never function;
; a call holding a function (memo(...)) is a component when a function pattern also matches.
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(object) (array) (call_expression) (new_expression) (class) (template_string)])) @definition.constant)
(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: [(object) (array) (call_expression) (new_expression) (class) (template_string)])) @definition.constant))
