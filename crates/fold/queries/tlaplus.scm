; TLA+ definitions: modules (nested too), module-level operator and function definitions, `CONSTANTS` and
; `VARIABLES` declarations (named by their first name), and theorems.

(module name: (identifier) @name) @definition.module
; Module-level only: `LET x == ... IN` definitions are local.
(module (operator_definition name: (_) @name) @definition.function)
(module (function_definition name: (identifier) @name) @definition.function)
(constant_declaration . (_) @name) @definition.constant
(variable_declaration . (_) @name) @definition.variable
(theorem name: (identifier) @name) @definition.property
