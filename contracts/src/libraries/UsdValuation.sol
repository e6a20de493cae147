// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IPriceFeed } from "../interfaces/IPriceFeed.sol";
import { Execution } from "./ExecutionLib.sol";

/// @notice A priced asset in enforcer terms. token == address(0) is native ETH and must say 18 decimals.
struct TokenFeed {
    address token;
    uint8 decimals;
    address feed;
}

/// @title UsdValuation
/// @notice Prices what a redemption can take out of the owner's account in USD6 (6 decimals, like USDC),
///         with Chainlink-style feeds, refusing stale and non-positive prices and rounding up.
/// @dev Internal functions only, so every enforcer inlines them (no external library call per hook).
///      Amounts of one asset are summed over all executions of a redemption and priced once: one feed
///      read per listed asset actually used. An amount of type(uint256).max (an unlimited approval, or a
///      sum that overflowed) is valued at type(uint256).max: it is unbounded spend, never a small number.
library UsdValuation {
    error StalePrice(address feed, uint256 updatedAt, uint256 maxAge);
    error InvalidPrice(address feed, int256 answer);
    error UnpricedAsset(address token);
    /// @dev The terms are not the canonical abi.encode of the enforcer's layout.
    error InvalidTermsLength(uint256 length);
    /// @dev A TokenFeed entry with no feed, or a native entry whose decimals are not 18.
    error InvalidTokenFeed(uint256 index, address token, uint8 decimals, address feed);
    /// @dev The L2 sequencer uptime feed reports the sequencer down (answer 1) since `since`.
    error SequencerDown(address uptimeFeed, uint256 since);
    /// @dev The sequencer is up again since `upSince`, but for no longer than `gracePeriod` seconds.
    error SequencerGracePeriodNotOver(address uptimeFeed, uint256 upSince, uint256 gracePeriod);

    bytes4 internal constant TRANSFER = 0xa9059cbb; // transfer(address,uint256)
    bytes4 internal constant TRANSFER_FROM = 0x23b872dd; // transferFrom(address,address,uint256)
    bytes4 internal constant APPROVE = 0x095ea7b3; // approve(address,uint256)

    uint256 internal constant NOT_LISTED = type(uint256).max;
    uint256 internal constant MAX = type(uint256).max;

    // ---------------------------------------------------------------- terms

    /// @notice Reverts unless `terms` is exactly `headWords` static words whose last is the offset of a
    ///         trailing TokenFeed[] (canonical abi.encode), followed by that array.
    /// @dev Run before abi.decode so a bad length gets a named error instead of an empty revert.
    function requireFeedsLayout(
        bytes calldata terms,
        uint256 headWords
    ) internal pure {
        uint256 head = headWords * 32;
        uint256 len = terms.length;
        if (len < head + 32) revert InvalidTermsLength(len);
        if (uint256(bytes32(terms[head - 32:head])) != head) revert InvalidTermsLength(len);
        uint256 count = uint256(bytes32(terms[head:head + 32]));
        if (count > len / 96 || len != head + 32 + count * 96) revert InvalidTermsLength(len);
    }

    /// @notice Reverts on a TokenFeed entry that could never price correctly.
    function validateFeeds(
        TokenFeed[] memory feeds
    ) internal pure {
        for (uint256 i; i < feeds.length; ++i) {
            TokenFeed memory f = feeds[i];
            if (f.feed == address(0) || (f.token == address(0) && f.decimals != 18)) {
                revert InvalidTokenFeed(i, f.token, f.decimals, f.feed);
            }
        }
    }

    /// @notice Index of `token` in `feeds` (first entry wins), or NOT_LISTED.
    function indexOf(
        TokenFeed[] memory feeds,
        address token
    ) internal pure returns (uint256) {
        for (uint256 i; i < feeds.length; ++i) {
            if (feeds[i].token == token) return i;
        }
        return NOT_LISTED;
    }

    // ---------------------------------------------------------------- prices

    /// @notice Refuses to price while an L2's sequencer is down or back up for `gracePeriod` seconds or
    ///         less: feeds cannot update while it is down, so their last prices look fresher than they are,
    ///         and the first transactions after it returns may be the ones that queued while it was down.
    /// @dev Chainlink's sequencer uptime feed: answer 0 is up, anything else down; startedAt is when the
    ///      status last changed (0 for a round that never started). `uptimeFeed == address(0)`: no check
    ///      (an L1 or a local chain).
    function requireSequencerUp(
        address uptimeFeed,
        uint256 gracePeriod
    ) internal view {
        if (uptimeFeed == address(0)) return;
        (, int256 answer, uint256 startedAt,,) = IPriceFeed(uptimeFeed).latestRoundData();
        if (answer != 0) revert SequencerDown(uptimeFeed, startedAt);
        // forge-lint: disable-next-line(block-timestamp) -- a grace period in seconds is the rule itself
        if (startedAt == 0 || block.timestamp <= satAdd(startedAt, gracePeriod)) {
            revert SequencerGracePeriodNotOver(uptimeFeed, startedAt, gracePeriod);
        }
    }

    /// @notice The feed's answer as a positive integer, refusing an answer <= 0 or one older than maxAge.
    /// @dev An updatedAt in the future (sequencer clock skew) counts as age 0 rather than underflowing.
    function readPrice(
        address feed,
        uint256 maxAge
    ) internal view returns (uint256 price, uint8 feedDecimals) {
        (, int256 answer,, uint256 updatedAt,) = IPriceFeed(feed).latestRoundData();
        // forge-lint: disable-next-line(block-timestamp) -- price age in seconds is the rule itself
        if (block.timestamp > updatedAt && block.timestamp - updatedAt > maxAge) {
            revert StalePrice(feed, updatedAt, maxAge);
        }
        if (answer <= 0) revert InvalidPrice(feed, answer);
        // forge-lint: disable-next-line(unsafe-typecast) -- answer > 0 checked above
        price = uint256(answer);
        feedDecimals = IPriceFeed(feed).decimals();
    }

    /// @notice ceil(amount * price * 1e6 / (10**tokenDecimals * 10**feedDecimals)), exact for every input,
    ///         saturating at type(uint256).max; an amount of type(uint256).max is unlimited.
    function toUsd(
        uint256 amount,
        uint256 price,
        uint256 tokenDecimals,
        uint256 feedDecimals
    ) internal pure returns (uint256) {
        if (amount == 0) return 0;
        if (amount == MAX) return MAX;
        uint256 e = tokenDecimals + feedDecimals;
        if (e <= 6) {
            uint256 m = 10 ** (6 - e);
            if (price > MAX / m) return MAX; // amount >= 1, so the product is already past 2**256
            return mulDiv(amount, price * m, 1, true);
        }
        uint256 k = e - 6;
        if (k <= 77) return mulDiv(amount, price, 10 ** k, true);
        // 10**k does not fit: divide in two steps (ceil(ceil(x/a)/b) == ceil(x/(a*b))).
        uint256 r = mulDiv(amount, price, 1e77, true); // amount * price < 2**511, so r < 1e77
        k -= 77;
        if (k >= 77) return 1; // 1 <= r < 1e77 <= 10**k
        return ceilDiv(r, 10 ** k);
    }

    // ---------------------------------------------------------------- executions

    /// @notice USD6 value of everything `executions` can take out of the account (see docs/contracts.md).
    /// @dev Native value needs an address(0) feed (else UnpricedAsset(address(0))); transfer, transferFrom
    ///      and approve on a listed token count their amount; everything else counts 0.
    function valueOf(
        Execution[] memory executions,
        TokenFeed[] memory feeds,
        uint256 maxPriceAge
    ) internal view returns (uint256 usd) {
        uint256[] memory amounts = new uint256[](feeds.length);
        bool any;
        for (uint256 i; i < executions.length; ++i) {
            Execution memory ex = executions[i];
            if (ex.value != 0) {
                uint256 n = indexOf(feeds, address(0));
                if (n == NOT_LISTED) revert UnpricedAsset(address(0));
                amounts[n] = satAdd(amounts[n], ex.value);
                any = true;
            }
            (bool moves, uint256 amount) = tokenAmountOf(ex.callData);
            if (!moves || amount == 0) continue;
            // address(0) is the native entry's key, never a token contract.
            if (ex.target == address(0)) continue;
            uint256 t = indexOf(feeds, ex.target);
            if (t == NOT_LISTED) continue;
            amounts[t] = satAdd(amounts[t], amount);
            any = true;
        }
        if (!any) return 0;
        for (uint256 i; i < amounts.length; ++i) {
            uint256 amount = amounts[i];
            if (amount == 0) continue;
            TokenFeed memory f = feeds[i];
            (uint256 price, uint8 feedDecimals) = readPrice(f.feed, maxPriceAge);
            usd = satAdd(usd, toUsd(amount, price, f.decimals, feedDecimals));
        }
    }

    /// @notice Whether a call is an ERC-20 transfer, transferFrom or approve, and the amount it names.
    /// @dev Words are read zero-padded exactly as the token's CALLDATALOAD would see them, so a short
    ///      calldata can never name a smaller amount to us than to the token.
    function tokenAmountOf(
        bytes memory callData
    ) internal pure returns (bool moves, uint256 amount) {
        if (callData.length < 4) return (false, 0);
        // forge-lint: disable-next-line(unsafe-typecast) -- the first 4 bytes are the selector (len >= 4 checked)
        bytes4 selector = bytes4(callData);
        if (selector == TRANSFER || selector == APPROVE) return (true, wordAt(callData, 36));
        if (selector == TRANSFER_FROM) return (true, wordAt(callData, 68));
        return (false, 0);
    }

    /// @notice The 32-byte word at `offset` of `data`, zero-padded past its end (CALLDATALOAD semantics).
    function wordAt(
        bytes memory data,
        uint256 offset
    ) internal pure returns (uint256 word) {
        uint256 len = data.length;
        if (offset >= len) return 0;
        assembly ("memory-safe") {
            word := mload(add(add(data, 32), offset))
        }
        uint256 available = len - offset;
        if (available < 32) word &= ~(MAX >> (available * 8));
    }

    // ---------------------------------------------------------------- math

    function satAdd(
        uint256 a,
        uint256 b
    ) internal pure returns (uint256) {
        unchecked {
            uint256 c = a + b;
            return c < a ? MAX : c;
        }
    }

    function ceilDiv(
        uint256 a,
        uint256 b
    ) internal pure returns (uint256) {
        return a == 0 ? 0 : (a - 1) / b + 1;
    }

    /// @notice x * y / d with a 512-bit intermediate, rounded down or up, saturating at type(uint256).max.
    /// @dev Remco Bloemen's mulDiv (MIT), as in OpenZeppelin Math, with saturation instead of a revert
    ///      when the result does not fit. d must be non-zero.
    function mulDiv(
        uint256 x,
        uint256 y,
        uint256 d,
        bool roundUp
    ) internal pure returns (uint256 result) {
        unchecked {
            uint256 prod0 = x * y;
            uint256 prod1;
            assembly ("memory-safe") {
                let mm := mulmod(x, y, not(0))
                prod1 := sub(sub(mm, prod0), lt(mm, prod0))
            }
            if (prod1 == 0) {
                result = prod0 / d;
                // d == 1 leaves no remainder; d >= 2 leaves room for the +1.
                if (roundUp && prod0 % d != 0) result += 1;
                return result;
            }
            if (d <= prod1) return MAX;
            uint256 remainder;
            assembly ("memory-safe") {
                remainder := mulmod(x, y, d)
                prod1 := sub(prod1, gt(remainder, prod0))
                prod0 := sub(prod0, remainder)
            }
            uint256 twos = d & (0 - d);
            assembly ("memory-safe") {
                d := div(d, twos)
                prod0 := div(prod0, twos)
                twos := add(div(sub(0, twos), twos), 1)
            }
            prod0 |= prod1 * twos;
            uint256 inverse = (3 * d) ^ 2;
            inverse *= 2 - d * inverse;
            inverse *= 2 - d * inverse;
            inverse *= 2 - d * inverse;
            inverse *= 2 - d * inverse;
            inverse *= 2 - d * inverse;
            inverse *= 2 - d * inverse;
            result = prod0 * inverse;
            if (roundUp && remainder != 0) result = result == MAX ? MAX : result + 1;
        }
    }
}
