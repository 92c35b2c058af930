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
