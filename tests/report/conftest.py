from report_fixtures import all_views, browser, report_file, toy_store, toy_views  # noqa: F401  (fixtures)
