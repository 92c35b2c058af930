; JSON: the keys whose value is an object or an array, so that an outline shows the sections of
; a configuration file (`"scripts": {`, `"compilerOptions": {`). Scalars are left out; folding
; ranges come from the brackets.

(pair
  key: (string (string_content) @name)
  value: [(object) (array)]) @definition.property
