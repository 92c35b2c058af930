; Kotlin definitions: classes (interfaces and enum classes by their keyword/body), objects and
; companion objects, functions (methods when inside a type), secondary constructors, type
; aliases, and properties with a custom getter or setter. Annotations are not a first line.

(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration name: (identifier) @name (enum_class_body)) @definition.enum
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(companion_object "companion" @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(secondary_constructor "constructor" @name) @definition.constructor
(type_alias type: (identifier) @name) @definition.type
(property_declaration
  (variable_declaration (identifier) @name)
  [(getter) (setter)]) @definition.property
