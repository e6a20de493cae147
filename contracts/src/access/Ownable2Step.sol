// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @title Ownable2Step
/// @notice One owner, moved in two steps: the owner names a pending owner, and the role moves only when
///         that address accepts. A mistyped or unreachable address therefore never takes the role, and the
///         old owner keeps it (and can name another, or cancel) until the new one proves it holds its key.
/// @dev OpenZeppelin's Ownable2Step semantics, written here because no OpenZeppelin package is vendored.
///      There is no renounce: the contracts using it would be frozen forever without an owner. A zero
///      initial owner is the inheriting contract's to refuse (with its own error).
abstract contract Ownable2Step {
    address private _owner;
    address private _pendingOwner;

    event OwnershipTransferStarted(address indexed previousOwner, address indexed newOwner);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotOwner(address caller);
    error NotPendingOwner(address caller, address pendingOwner);

    modifier onlyOwner() {
        if (msg.sender != _owner) revert NotOwner(msg.sender);
        _;
    }

    constructor(
        address initialOwner
    ) {
        _transferOwnership(initialOwner);
    }

    /// @notice The address that holds the role now.
    function owner() public view returns (address) {
        return _owner;
    }

    /// @notice The address named to take the role, until it accepts (zero when none is).
    function pendingOwner() public view returns (address) {
        return _pendingOwner;
    }

    /// @notice Names `newOwner` as pending owner; the role moves when it calls `acceptOwnership`. Naming
    ///         the zero address cancels a pending transfer; naming another replaces it.
    /// @dev Reverts `NotOwner`.
    function transferOwnership(
        address newOwner
    ) external onlyOwner {
        _pendingOwner = newOwner;
        emit OwnershipTransferStarted(_owner, newOwner);
    }

    /// @notice The pending owner takes the role.
    /// @dev Reverts `NotPendingOwner(caller, pendingOwner)` for anyone else (also when none is pending).
    function acceptOwnership() external {
        if (msg.sender != _pendingOwner || msg.sender == address(0)) revert NotPendingOwner(msg.sender, _pendingOwner);
        _transferOwnership(msg.sender);
    }

    function _transferOwnership(
        address newOwner
    ) private {
        delete _pendingOwner;
        address previous = _owner;
        _owner = newOwner;
        emit OwnershipTransferred(previous, newOwner);
    }
}
