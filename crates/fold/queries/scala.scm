; Scala definitions: classes (case classes too), objects, traits, Scala 3 enums, extensions
; (as impl), functions (methods when inside a type), abstract members with a body-less
; signature, type aliases, and `given` instances. Annotations are not a first line.

(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum
(extension_definition parameters: (parameters (parameter type: (_) @name))) @definition.impl
(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function
(type_definition name: (type_identifier) @name) @definition.type
(given_definition name: (identifier) @name) @definition.class
