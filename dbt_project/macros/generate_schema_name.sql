{# Models land in the schema their folder's +schema names (staging, silver_views, gold_marts, reference), not in
   "<target schema>_<layer>": consumers and the migrations address these schemas by name. None of
   them is an engine schema (bronze, silver, gold, auth, telemetry, meta), so dbt never meets an
   engine object. #}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}{{ target.schema }}{%- else -%}{{ custom_schema_name | trim }}{%- endif -%}
{%- endmacro %}
