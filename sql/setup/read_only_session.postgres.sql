SET default_transaction_read_only = on
