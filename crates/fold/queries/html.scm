; HTML definitions: the document's landmarks, not every element. An element is kept when it is a
; sectioning or landmark element, a form, table, template or dialog, or when it has an `id`; plus
; every `<script>` and `<style>`. Its name is its start tag (`<section id="pricing">`).

(script_element (start_tag) @name) @definition.element
(style_element (start_tag) @name) @definition.element

(element
  (start_tag
    (tag_name) @_tag) @name
  (#any-of? @_tag
    "html" "head" "body" "header" "nav" "main" "section" "article" "aside" "footer"
    "form" "table" "template" "dialog" "details")) @definition.element

(element
  (start_tag
    (attribute (attribute_name) @_attribute)) @name
  (#eq? @_attribute "id")) @definition.element
