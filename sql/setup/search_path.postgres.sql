SELECT current_setting('search_path')
