; C definitions: functions with bodies, structs/unions/enums with bodies, typedefs of them, and
; multi-line function-like macros. Prototypes and variables are left out.

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

(type_definition
  type: [(struct_specifier body: (_)) (union_specifier body: (_))]
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier body: (_))
  declarator: (type_identifier) @name) @definition.enum

(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

(preproc_function_def name: (identifier) @name) @definition.macro
