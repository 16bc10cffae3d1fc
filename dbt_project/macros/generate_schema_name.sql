{# Models land in the schema their layer names (staging, silver, gold, reference), not in
   "<target schema>_<layer>": the engine, the tools and the migrations address these schemas by name. #}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}{{ target.schema }}{%- else -%}{{ custom_schema_name | trim }}{%- endif -%}
{%- endmacro %}
