/// `verifyReceipt` answers shaped as Apple sends them (fields, types and quirks as in
/// Apple's `responseBody` documentation); ids and dates are made up.
enum RecordedAnswers {
    /// Production, one consumable bought twice over and a non-consumable; no subscriptions,
    /// so no `latest_receipt_info`.
    static let consumables = #"""
        {
          "receipt": {
            "receipt_type": "Production",
            "adam_id": 1234567890,
            "app_item_id": 1234567890,
            "bundle_id": "com.example.game",
            "application_version": "42",
            "download_id": 80012345678901,
            "version_external_identifier": 812345678,
            "receipt_creation_date": "2024-03-01 10:15:30 Etc/GMT",
            "receipt_creation_date_ms": "1709288130000",
            "receipt_creation_date_pst": "2024-03-01 02:15:30 America/Los_Angeles",
            "request_date": "2024-03-01 10:15:31 Etc/GMT",
            "request_date_ms": "1709288131000",
            "request_date_pst": "2024-03-01 02:15:31 America/Los_Angeles",
            "original_purchase_date": "2023-12-24 08:00:00 Etc/GMT",
            "original_purchase_date_ms": "1703404800000",
            "original_purchase_date_pst": "2023-12-24 00:00:00 America/Los_Angeles",
            "original_application_version": "40",
            "in_app": [
              {
                "quantity": "3",
                "product_id": "com.example.coins100",
                "transaction_id": "300001234567890",
                "original_transaction_id": "300001234567890",
                "purchase_date": "2024-03-01 10:15:29 Etc/GMT",
                "purchase_date_ms": "1709288129000",
                "purchase_date_pst": "2024-03-01 02:15:29 America/Los_Angeles",
                "original_purchase_date": "2024-03-01 10:15:29 Etc/GMT",
                "original_purchase_date_ms": "1709288129000",
                "original_purchase_date_pst": "2024-03-01 02:15:29 America/Los_Angeles",
                "is_trial_period": "false",
                "in_app_ownership_type": "PURCHASED"
              },
              {
                "quantity": "1",
                "product_id": "com.example.sword",
                "transaction_id": "300001234567777",
                "original_transaction_id": "300001234567777",
                "purchase_date_ms": "1709200000123",
                "original_purchase_date_ms": "1709200000123",
                "cancellation_date": "2024-03-02 09:00:00 Etc/GMT",
                "cancellation_date_ms": "1709370000000",
                "cancellation_reason": "0",
                "is_trial_period": "false",
                "in_app_ownership_type": "PURCHASED"
              }
            ]
          },
          "environment": "Production",
          "status": 0
        }
        """#

    /// Sandbox, a monthly subscription renewed once; `latest_receipt_info` is newer than the
    /// receipt's `in_app` (the renewal happened after the receipt was made).
    static let subscription = #"""
        {
          "environment": "Sandbox",
          "receipt": {
            "receipt_type": "ProductionSandbox",
            "bundle_id": "com.example.game",
            "application_version": "42",
            "in_app": [
              {
                "quantity": "1",
                "product_id": "com.example.vip.monthly",
                "transaction_id": "2000000500000001",
                "original_transaction_id": "2000000500000001",
                "purchase_date_ms": "1709288129000",
                "original_purchase_date_ms": "1709288129000",
                "expires_date": "2024-03-01 10:20:29 Etc/GMT",
                "expires_date_ms": "1709288429000",
                "expires_date_pst": "2024-03-01 02:20:29 America/Los_Angeles",
                "web_order_line_item_id": "2000000040000001",
                "is_trial_period": "true",
                "is_in_intro_offer_period": "false",
                "in_app_ownership_type": "PURCHASED"
              }
            ]
          },
          "latest_receipt_info": [
            {
              "quantity": "1",
              "product_id": "com.example.vip.monthly",
              "transaction_id": "2000000500000002",
              "original_transaction_id": "2000000500000001",
              "purchase_date_ms": "1709288429000",
              "original_purchase_date_ms": "1709288129000",
              "expires_date_ms": "1709288729000",
              "web_order_line_item_id": "2000000040000002",
              "is_trial_period": "false",
              "is_in_intro_offer_period": "false",
              "subscription_group_identifier": "20123456",
              "app_account_token": "6f2b1a7e-3c1d-4a7b-9d0e-1f2a3b4c5d6e",
              "in_app_ownership_type": "PURCHASED"
            },
            {
              "quantity": "1",
              "product_id": "com.example.vip.monthly",
              "transaction_id": "2000000500000001",
              "original_transaction_id": "2000000500000001",
              "purchase_date_ms": "1709288129000",
              "original_purchase_date_ms": "1709288129000",
              "expires_date_ms": "1709288429000",
              "cancellation_date_ms": "1709288300000",
              "cancellation_reason": "1",
              "web_order_line_item_id": "2000000040000001",
              "is_trial_period": "true",
              "is_in_intro_offer_period": "false",
              "subscription_group_identifier": "20123456",
              "in_app_ownership_type": "PURCHASED"
            }
          ],
          "latest_receipt": "MIIUVgYJKoZIhvcNAQcCoIIURzCCFEMCAQExCzAJBgUrDgMCGgUAMIIDtw==",
          "pending_renewal_info": [
            {
              "auto_renew_product_id": "com.example.vip.monthly",
              "product_id": "com.example.vip.monthly",
              "original_transaction_id": "2000000500000001",
              "auto_renew_status": "1"
            }
          ],
          "status": 0
        }
        """#

    /// An internal data access error Apple says to retry.
    static let retryableInternalError = #"{"status": 21199, "is-retryable": true, "environment": "Production"}"#
}
