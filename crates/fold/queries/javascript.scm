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

; higher-order components: const Button = memo((props) => ...)
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression
      arguments: (arguments [(arrow_function) (function_expression)])))
  ) @definition.function

; exports.f = function () {...}, module.exports.f = ...
(expression_statement
  (assignment_expression
    left: (member_expression
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)])) @definition.function

; describe("...", () => {...}), it(...), test(...)
(call_expression
  function: (identifier) @_test_function
  arguments: (arguments
    .
    [(string) (template_string)] @name
    [(arrow_function) (function_expression)])
  (#any-of? @_test_function "describe" "it" "test")) @definition.test
