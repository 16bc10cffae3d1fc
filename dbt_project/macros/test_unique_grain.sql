{# The grain of an aggregate: no two rows share these columns (dbt_utils' unique_combination_of_columns,
   without adding a package download to the build). #}
{% test unique_grain(model, columns) %}
select {{ columns | join(', ') }}, count(*) as n_rows
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}
