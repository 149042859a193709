//! Table definitions shared by both backends: only types that SQLite and Postgres map alike.

diesel::table! {
    accounts (id) {
        id -> Text,
        name -> Text,
        name_key -> Text,
        password_hash -> Text,
        created_at -> BigInt,
        token_generation -> Integer,
        webhook_count -> Integer,
        mail_topics -> Integer,
        vacation_until -> Nullable<BigInt>,
        auto_vacation -> Bool,
        role -> Text,
        chat_muted_until -> Nullable<BigInt>,
        suspended_at -> Nullable<BigInt>,
        push_subscription_count -> Integer,
        last_seen_day -> Nullable<BigInt>,
        follow_count -> Integer,
    }
}

diesel::table! {
    push_subscriptions (id) {
        id -> Text,
        account_id -> Text,
        endpoint -> Text,
        service -> Text,
        p256dh -> Text,
        auth -> Text,
        expires_at -> Nullable<BigInt>,
        device -> Text,
        topics -> Integer,
        created_at -> BigInt,
        last_delivered_at -> Nullable<BigInt>,
        last_failed_at -> Nullable<BigInt>,
        last_error -> Nullable<Text>,
        busy_until -> Nullable<BigInt>,
        last_claimed_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    push_messages (id) {
        id -> BigInt,
        subscription_id -> Text,
        game_id -> Text,
        kind -> Text,
        payload -> Text,
        created_at -> BigInt,
        attempts -> Integer,
        next_attempt_at -> BigInt,
    }
}

diesel::table! {
    push_unseen (account_id, game_id) {
        account_id -> Text,
        game_id -> Text,
        pushed_at -> BigInt,
    }
}

diesel::table! {
    games (id) {
        id -> Text,
        kind -> Text,
        rules_version -> Integer,
        options -> Text,
        seat_count -> Integer,
        status -> Text,
        seed -> Text,
        created_by -> Text,
        created_at -> BigInt,
        updated_at -> BigInt,
        current_seq -> BigInt,
        to_act -> Text,
        outcome -> Nullable<Text>,
        time_control -> Text,
        private -> Bool,
        cancel_reason -> Nullable<Text>,
    }
}

diesel::table! {
    seats (game_id, seat) {
        game_id -> Text,
        seat -> Integer,
        account_id -> Nullable<Text>,
        joined_at -> BigInt,
        must_act -> Bool,
        bot -> Nullable<Text>,
        forfeit -> Nullable<Text>,
        deadline -> Nullable<BigInt>,
        bank_ms -> BigInt,
        abandon_vote -> Bool,
        vacation_until -> Nullable<BigInt>,
    }
}

diesel::table! {
    events (game_id, seq) {
        game_id -> Text,
        seq -> BigInt,
        created_at -> BigInt,
        seat -> Nullable<Integer>,
        event_type -> Text,
        schema_version -> Integer,
        payload -> Text,
        source -> Text,
    }
}

diesel::table! {
    actions (game_id, first_seq) {
        game_id -> Text,
        first_seq -> BigInt,
        last_seq -> BigInt,
        seat -> Integer,
        account_id -> Nullable<Text>,
        action -> Text,
        idempotency_key -> Nullable<Text>,
        request -> Text,
        created_at -> BigInt,
        bot -> Nullable<Text>,
    }
}

diesel::joinable!(seats -> games (game_id));
diesel::joinable!(seats -> accounts (account_id));
diesel::joinable!(events -> games (game_id));

diesel::table! {
    game_invitations (game_id, account_id) {
        game_id -> Text,
        account_id -> Text,
        invited_at -> BigInt,
        declined_at -> Nullable<BigInt>,
    }
}

diesel::joinable!(game_invitations -> games (game_id));

diesel::table! {
    rematches (game_id) {
        game_id -> Text,
        rematch_id -> Text,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    accounts,
    games,
    seats,
    events,
    actions,
    game_invitations,
    rematches
);

diesel::table! {
    notifications (id) {
        id -> BigInt,
        account_id -> Text,
        game_id -> Text,
        kind -> Text,
        seq -> BigInt,
        payload -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    webhooks (id) {
        id -> Text,
        account_id -> Text,
        url -> Text,
        secret -> Text,
        created_at -> BigInt,
        busy_until -> Nullable<BigInt>,
        last_claimed_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> Text,
        webhook_id -> Text,
        notification_id -> Nullable<BigInt>,
        kind -> Text,
        payload -> Text,
        created_at -> BigInt,
        attempts -> Integer,
        next_attempt_at -> BigInt,
        claimed_until -> Nullable<BigInt>,
        delivered_at -> Nullable<BigInt>,
        failed_at -> Nullable<BigInt>,
        last_status -> Nullable<Integer>,
        last_error -> Nullable<Text>,
    }
}

diesel::table! {
    jobs (kind, game_id) {
        kind -> Text,
        game_id -> Text,
        account_id -> Text,
        due_at -> BigInt,
        interactive -> Bool,
        lease_owner -> Nullable<Text>,
        lease_until -> Nullable<BigInt>,
    }
}

diesel::table! {
    personal_tokens (id) {
        id -> Text,
        account_id -> Text,
        name -> Text,
        scopes -> Text,
        secret_hash -> Text,
        created_at -> BigInt,
        expires_at -> BigInt,
        last_used_at -> Nullable<BigInt>,
    }
}

diesel::joinable!(personal_tokens -> accounts (account_id));
diesel::allow_tables_to_appear_in_same_query!(personal_tokens, accounts);

diesel::table! {
    chat_messages (id) {
        id -> BigInt,
        game_id -> Text,
        account_id -> Text,
        seat -> Nullable<Integer>,
        body -> Text,
        mentions -> Text,
        created_at -> BigInt,
        deleted_at -> Nullable<BigInt>,
        hidden_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    game_settings (game_id) {
        game_id -> Text,
        spectators_may_write -> Bool,
        rated -> Bool,
        rating_order -> Nullable<BigInt>,
        visibility -> Text,
        clock_version -> Integer,
        title -> Nullable<Text>,
    }
}

diesel::joinable!(game_settings -> games (game_id));
diesel::allow_tables_to_appear_in_same_query!(game_settings, games);
diesel::allow_tables_to_appear_in_same_query!(game_settings, seats);
diesel::allow_tables_to_appear_in_same_query!(game_settings, accounts);
diesel::allow_tables_to_appear_in_same_query!(game_settings, game_invitations);

diesel::table! {
    rating_counter (id) {
        id -> Integer,
        last -> BigInt,
    }
}

diesel::table! {
    ratings (account_id, kind) {
        account_id -> Text,
        kind -> Text,
        rating -> Double,
        uncertainty -> Double,
        conservative -> Double,
        games -> Integer,
        updated_at -> BigInt,
    }
}

diesel::table! {
    rating_changes (game_id, account_id) {
        game_id -> Text,
        account_id -> Text,
        kind -> Text,
        seat -> Integer,
        place -> Integer,
        rating_before -> Double,
        uncertainty_before -> Double,
        rating_after -> Double,
        uncertainty_after -> Double,
        rating_order -> BigInt,
        created_at -> BigInt,
    }
}

diesel::joinable!(ratings -> accounts (account_id));
diesel::joinable!(rating_changes -> accounts (account_id));
diesel::joinable!(rating_changes -> games (game_id));
diesel::allow_tables_to_appear_in_same_query!(ratings, accounts);
diesel::allow_tables_to_appear_in_same_query!(rating_changes, accounts);
diesel::allow_tables_to_appear_in_same_query!(rating_changes, games);

diesel::joinable!(chat_messages -> accounts (account_id));
diesel::allow_tables_to_appear_in_same_query!(chat_messages, accounts);

diesel::table! {
    account_settings (account_id) {
        account_id -> Text,
        reminder_minutes -> Text,
    }
}

diesel::table! {
    reminders_sent (game_id, seat, deadline, minutes) {
        game_id -> Text,
        seat -> Integer,
        deadline -> BigInt,
        minutes -> Integer,
    }
}

diesel::table! {
    email_addresses (account_id) {
        account_id -> Text,
        address -> Text,
        confirmed_at -> Nullable<BigInt>,
        confirmation_hash -> Nullable<Text>,
        confirmation_expires_at -> Nullable<BigInt>,
        topics -> Integer,
        digest -> Bool,
        digest_hour -> Integer,
        unsubscribe_token -> Text,
        busy_until -> Nullable<BigInt>,
        last_mailed_at -> Nullable<BigInt>,
        created_at -> BigInt,
    }
}

diesel::table! {
    mail_outbox (id) {
        id -> BigInt,
        account_id -> Text,
        address -> Text,
        kind -> Text,
        notification_id -> Nullable<BigInt>,
        payload -> Text,
        due_at -> BigInt,
        created_at -> BigInt,
        attempts -> Integer,
        sent_at -> Nullable<BigInt>,
        failed_at -> Nullable<BigInt>,
        last_error -> Nullable<Text>,
        message_id -> Nullable<Text>,
    }
}

diesel::allow_tables_to_appear_in_same_query!(email_addresses, accounts);
diesel::allow_tables_to_appear_in_same_query!(email_addresses, mail_outbox);

diesel::table! {
    vacations (id) {
        id -> BigInt,
        account_id -> Text,
        started_at -> BigInt,
        ends_at -> BigInt,
        ended_at -> Nullable<BigInt>,
        automatic -> Bool,
    }
}

diesel::table! {
    store_settings (name) {
        name -> Text,
        value -> Text,
    }
}

diesel::table! {
    blocks (account_id, blocked_id) {
        account_id -> Text,
        blocked_id -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    reports (id) {
        id -> BigInt,
        reporter_id -> Text,
        account_id -> Text,
        game_id -> Nullable<Text>,
        message_id -> Nullable<BigInt>,
        message_text -> Nullable<Text>,
        reason -> Text,
        created_at -> BigInt,
        resolved_at -> Nullable<BigInt>,
        resolved_by -> Nullable<Text>,
    }
}

diesel::table! {
    moderation_log (id) {
        id -> BigInt,
        moderator_id -> Nullable<Text>,
        action -> Text,
        account_id -> Nullable<Text>,
        game_id -> Nullable<Text>,
        message_id -> Nullable<BigInt>,
        report_id -> Nullable<BigInt>,
        reason -> Text,
        until_at -> Nullable<BigInt>,
        created_at -> BigInt,
    }
}

diesel::allow_tables_to_appear_in_same_query!(blocks, accounts);
diesel::allow_tables_to_appear_in_same_query!(reports, accounts);
diesel::allow_tables_to_appear_in_same_query!(moderation_log, accounts);

diesel::joinable!(push_messages -> push_subscriptions (subscription_id));
diesel::allow_tables_to_appear_in_same_query!(push_messages, push_subscriptions);

diesel::table! {
    follows (follower_id, followed_id) {
        follower_id -> Text,
        followed_id -> Text,
        created_at -> BigInt,
    }
}
diesel::allow_tables_to_appear_in_same_query!(follows, accounts);
diesel::allow_tables_to_appear_in_same_query!(follows, games);
diesel::allow_tables_to_appear_in_same_query!(follows, seats);
diesel::allow_tables_to_appear_in_same_query!(ratings, games);
diesel::allow_tables_to_appear_in_same_query!(ratings, seats);
diesel::allow_tables_to_appear_in_same_query!(rating_changes, seats);
diesel::allow_tables_to_appear_in_same_query!(blocks, follows);

diesel::table! {
    profiles (account_id) {
        account_id -> Text,
        about -> Text,
        country -> Nullable<Text>,
        language -> Nullable<Text>,
        show_last_seen -> Bool,
    }
}

diesel::joinable!(profiles -> accounts (account_id));
diesel::allow_tables_to_appear_in_same_query!(profiles, accounts);
diesel::allow_tables_to_appear_in_same_query!(follows, game_settings);
diesel::allow_tables_to_appear_in_same_query!(rating_changes, game_settings);
diesel::allow_tables_to_appear_in_same_query!(blocks, games);
diesel::allow_tables_to_appear_in_same_query!(blocks, seats);
diesel::allow_tables_to_appear_in_same_query!(blocks, game_settings);
diesel::allow_tables_to_appear_in_same_query!(blocks, ratings);
