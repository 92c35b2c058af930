; Zig definitions: functions (methods when inside a container), `const Name = struct/enum/union
; { ... }` containers, error sets (as enums), opaque types, and `test "..."` blocks. The
; anchors end a non-matching pattern at once: unanchored, each nesting level kept partial matches
; alive and 10,000 nested containers lost most of their definitions to the cursor's state limit.

(function_declaration name: (identifier) @name) @definition.function
(variable_declaration
  . (identifier) @name
  . [(struct_declaration) (union_declaration) (opaque_declaration)]) @definition.struct
(variable_declaration
  . (identifier) @name
  . [(enum_declaration) (error_set_declaration)]) @definition.enum
(test_declaration [(string) (identifier)] @name) @definition.test
