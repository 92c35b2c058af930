; Zig definitions: functions (methods when inside a container), `const Name = struct/enum/union
; { ... }` containers, error sets (as enums), opaque types, and `test "..."` blocks.

(function_declaration name: (identifier) @name) @definition.function
(variable_declaration (identifier) @name (struct_declaration)) @definition.struct
(variable_declaration (identifier) @name (union_declaration)) @definition.struct
(variable_declaration (identifier) @name (opaque_declaration)) @definition.struct
(variable_declaration (identifier) @name (enum_declaration)) @definition.enum
(variable_declaration (identifier) @name (error_set_declaration)) @definition.enum
(test_declaration [(string) (identifier)] @name) @definition.test
