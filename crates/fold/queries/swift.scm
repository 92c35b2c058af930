; Swift definitions: classes, structs, enums, actors, extensions (as impl blocks named by the
; extended type), protocols, functions (methods when inside a type), initializers, deinit,
; subscripts, computed properties and type aliases. `@attributes` are not a first line.

(class_declaration declaration_kind: "class" name: (_) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (_) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (_) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (_) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (_) @name) @definition.impl
(protocol_declaration name: (_) @name) @definition.interface
(protocol_function_declaration name: (_) @name) @definition.method
; `name: (_) @name` on a function takes over a second to compile; the engine reads the field.
((function_declaration) @definition.function (#set! name.field "name"))
(init_declaration name: "init" @name) @definition.constructor
(deinit_declaration "deinit" @name) @definition.method
(subscript_declaration "subscript" @name) @definition.method
(typealias_declaration name: (_) @name) @definition.type
(property_declaration
  name: (pattern) @name
  computed_value: (computed_property)) @definition.property
