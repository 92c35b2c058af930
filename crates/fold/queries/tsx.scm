; TSX additions on top of typescript.scm (which is prepended at load time).
; React components are plain functions, arrow functions and classes, already captured by
; typescript.scm. Higher-order components: const Button = memo(...) / forwardRef(...) / styled.x`...`
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression
      arguments: (arguments [(arrow_function) (function_expression)])))
  ) @definition.function
