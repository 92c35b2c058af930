; TLA+ definitions: modules (nested too), operator and function definitions, `CONSTANTS` and
; `VARIABLES` declarations (named by their first name), and theorems.

(module name: (identifier) @name) @definition.module
(operator_definition name: (_) @name) @definition.function
(function_definition name: (identifier) @name) @definition.function
(constant_declaration . (_) @name) @definition.constant
(variable_declaration . (_) @name) @definition.variable
(theorem name: (identifier) @name) @definition.property
