{#
  Beliefs at a valid time and a transaction time (S6): "what did we believe on `recorded_at`
  about what was true at `valid_at`". A version counts when it was recorded by `recorded_at`, its
  valid interval contains `valid_at`, and its end (valid_to) is only taken into account when the
  supersession had itself been recorded by `recorded_at`. Arguments are ISO-8601 strings, or 'now'
  (the default) for the current timestamp. Same semantics as the SQL function silver.facts_as_of.

      select * from ({{ facts_as_of('2024-03-15', '2024-03-18') }}) beliefs
#}
{% macro _as_of_timestamp(value) -%}
    {%- if value is none or value == 'now' -%}current_timestamp{%- else -%}'{{ value }}'::timestamptz{%- endif -%}
{%- endmacro %}

{% macro facts_as_of(valid_at='now', recorded_at='now', relation=none) -%}
    {%- set rel = relation if relation is not none else ref('fact_history') -%}
    {%- set v = _as_of_timestamp(valid_at) -%}
    {%- set r = _as_of_timestamp(recorded_at) -%}
    select f.*
    from {{ rel }} as f
    where f.recorded_at <= {{ r }}
      and f.valid_from <= {{ v }}
      and (f.superseded_at is null or f.superseded_at > {{ r }} or f.valid_to > {{ v }})
{%- endmacro %}
