; Lua definitions: `function name()`, `function M.name()`, `function obj:method()`, and functions
; assigned to a name (`local f = function() ... end`, `M.f = function() ... end`; the range starts at the name).

(function_declaration name: (method_index_expression) @name) @definition.method
(function_declaration name: (_) @name) @definition.function
(assignment_statement
  (variable_list . (_) @name)
  (expression_list . (function_definition))) @definition.function
