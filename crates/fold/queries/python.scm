; Python definitions.
; Convention: @definition.<kind> on the whole definition node, @name on its name.
; Functions directly in a class body (decorated or not) are methods; these patterns come first
; because the first pattern wins for one node.

(class_definition
  body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition
  body: (block
    (decorated_definition
      definition: (function_definition name: (identifier) @name) @definition.method)))

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
; A named lambda (`name = lambda ...`, or in parentheses over several lines) is a function, as
; `const f = () => ...` is in TypeScript.
(assignment
  left: (identifier) @name
  right: [(lambda) (parenthesized_expression (lambda))]) @definition.function
